use serde::Serialize;

#[derive(Serialize)]
pub struct Invite {
    pub email: String,
    pub role: i32,
}

pub type InviteId = String;

#[derive(Copy, Clone, PartialEq)]
pub enum InviteState {
    Sent = 0,
    Opened = 1,
    Accepted = 2,
}

impl InviteState {
    pub fn from_i32(value: i32) -> Option<Self> {
        match value {
            0 => Some(Self::Sent),
            1 => Some(Self::Opened),
            2 => Some(Self::Accepted),
            _ => None,
        }
    }
}

/// What a member may do, lowest first.
pub enum Role {
    Viewer = 0,
    Editor = 1,
    Owner = 2,
}

impl<T: Into<i32>> PartialEq<T> for Role {
    fn eq(&self, other: &T) -> bool {
        false
    }
}

pub fn default_role() -> Role {
    Role::Viewer
}

pub fn invite_ttl_days() -> i64 {
    7
}

pub struct RoleName(String);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viewer_is_the_default() {
        assert!(matches!(default_role(), Role::Viewer));
    }
}
