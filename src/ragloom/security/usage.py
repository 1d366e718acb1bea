"""Secrets recognised by how a value is used rather than by its name or shape: arguments of
connection and auth calls, the default of an environment lookup, password flags of command-line
clients, DSNs, ``expect`` scripts and network-device configs.

Each rule runs only on texts holding its needle (a call name, a tool name): most files hold
none, which keeps redaction fast. Whether the value found is a credential is decided by
``ragloom.security.values`` (a password-like literal) or by the name it is looked up under.
"""

from __future__ import annotations

import re

from ragloom.security.structure import named_secret
from ragloom.security.values import looks_like_password, looks_random
from ragloom.security.words import LineRule, Replace, redact_lines, sub

#: Connection and auth calls, and the 1-based position of their password argument:
#: ``DriverManager.getConnection(url, user, pw)``, ``new PDO(dsn, user, pw)``,
#: ``pymysql.connect(host, user, pw, db)``, ``server.login(user, pw)``, ...
_PASSWORD_ARGUMENT = {
    "getconnection": 3, "pdo": 3, "mysqli_connect": 3, "mysqli": 3, "mysqli_real_connect": 4,
    "sequelize": 3, "connect": 3, "login": 2, "plaincredentials": 2, "networkcredential": 2,
    "passwordauthentication": 2, "usernamepasswordcredentials": 2, "httpbasicauth": 2,
    "httpdigestauth": 2, "httpproxyauth": 2, "basicauth": 2, "digestauth": 2,
    "usernamepasswordauthenticationtoken": 2, "ldap_bind": 3, "simple_bind_s": 2, "bind_s": 2,
    "connection": 3, "plainauth": 3, "smtp.start": 5, "pg.connect": 7, "open_connection": 3,
}
_CALL = re.compile(r"(?<![\w$])(?P<call>" + "|".join(
    sorted((re.escape(name) for name in _PASSWORD_ARGUMENT), key=len, reverse=True)) + r")[ \t]*\(")
_CALL_NEEDLES = ("connect", "login", "pdo", "mysqli", "sequelize", "credential", "auth", "bind",
                 "connection", "smtp.start")
#: One argument: a quoted literal (``"pw".toCharArray()`` too) or anything up to a comma.
_ARGUMENT = re.compile(r"[ \t\r\n]*(?:(?P<quote>[\"'])(?P<quoted>[^\"'\\\n]{0,256})(?P=quote)"
                       r"(?:\.toCharArray\(\)|\.encode\(\))?|(?P<other>[^,()\"'\n]{0,200}))[ \t\r\n]*")
#: A setter or builder taking the secret alone: ``config.setPassword("...")``, ``.password("...")``.
_SETTER = re.compile(r"(?i)\.(?:set|with)?(?P<name>[a-z]*(?:password|secret|token|apikey|passphrase))"
                     r"[ \t]*\([ \t]*(?P<quote>[\"'])(?P<quoted>[^\"'\\\n]{1,256})(?P=quote)[ \t]*\)")

#: The literal default of an environment or config lookup under a secret name:
#: ``env('DB_PASSWORD', '...')``, ``os.getenv("X", "...")``, WordPress ``define('AUTH_KEY', '...')``,
#: ``getOrDefault("X", "...")``, Ruby ``ENV.fetch("X", "...")`` and ``ENV.fetch("X") { "..." }``.
_LOOKUP_DEFAULT = re.compile(
    r"(?i)\b(?:env|getenv|get|define|getordefault|fetch|getenv\w*|config)[ \t]*\([ \t]*"
    r"[\"'](?P<name>[\w.-]{1,80})[\"'][ \t]*(?:,[ \t]*|\)[ \t]*\{[ \t]*)"
    r"(?P<quote>[\"'])(?P<quoted>[^\"'\n]{1,256})(?P=quote)")
#: ``process.env.DB_PASSWORD || '...'`` (and ``??``)
_ENV_FALLBACK = re.compile(r"\benv\.(?P<name>\w{1,80})[ \t]*(?:\|\||\?\?)[ \t]*"
                           r"(?P<quote>[\"'`])(?P<quoted>[^\"'`\n]{1,256})(?P=quote)")
#: Shell, compose and Spring defaults: ``${DB_PASS:-...}``, ``${DB_PASSWORD:...}``
_VARIABLE_DEFAULT = re.compile(r"\$\{(?P<name>[\w.-]{1,80}):-?(?P<bare>[^}\s\"'$]{1,256})\}")
#: WordPress keys and salts: any printable run but quotes, judged by length and variety.
_WORDPRESS_SALT = re.compile(
    r"define\([ \t]*[\"'](?P<name>(?:SECURE_)?(?:AUTH|LOGGED_IN|NONCE)_(?:KEY|SALT))[\"'][ \t]*,[ \t]*"
    r"(?P<quote>[\"'])(?P<quoted>[^\"'\n]{16,256})(?P=quote)")
_PHRASE = re.compile(r"[A-Za-z ]+")

#: Password options of command-line clients, glued or next to a flag with no secret word.
_TOOL_FLAGS = re.compile(
    r"(?i)(?P<name>\bsqlcmd\b[^\n|;&]{0,200}?[ \t]-P[ \t]+"
    r"|\bdocker[ \t]+login\b[^\n|;&]{0,200}?[ \t]-p[ \t]+"
    r"|\b(?:mongosh|mongo|mongodump|mongorestore|mongoexport|mongoimport|cqlsh)\b"
    r"[^\n|;&]{0,200}?[ \t]-p[ \t]+"
    r"|[ \t]-(?:src|dest)?(?:storepass|keypass)[ \t]+"
    r"|-pass(?:in|out|word)?[ \t]+pass:|\bldap\w{2,10}\b[^\n|;&]{0,200}?[ \t]-w[ \t]+"
    r"|\baz[ \t]+login\b[^\n|;&]{0,200}?[ \t]-p[ \t]+|\bhtpasswd[ \t]+-\w*b\w*[ \t]+(?:\S+[ \t]+){2}"
    r"|\brabbitmqctl[ \t]+(?:add_user|change_password)[ \t]+\S+[ \t]+|\bsmbclient\b[^\n|;&]{0,200}?"
    r"(?:-U|--user=?)[ \t]*[^%\s]+%|\b\w*freerdp\b[^\n]{0,200}?[ \t]/p:"
    r"|\bnet[ \t]+use[ \t]+(?:\S+[ \t]+)?\\\\\S+[ \t]+"
    r"|\b(?:sqlplus|sqlldr|expdp|impdp|rman[ \t]+target)[ \t]+(?:-\w+[ \t]+)*[\w$#]+/"
    r"|\bjdbc:oracle:thin:[\w$#]+/"
    r"|\b(?:zip|unzip|7z|7za)\b[^\n|;&]{0,200}?[ \t]-[pP][ \t]*|^[ \t]*ENV[ \t]+\w*PASS\w*[ \t]+)"
    r"(?:(?P<quote>[\"'])(?P<quoted>[^\"'\n]{1,256})(?P=quote)|(?P<bare>[^\s\"'@;]{1,256}))", re.MULTILINE)
#: The lines the tool rule runs on (lowered; Dockerfile ``ENV`` lines hold ``env ``).
_TOOL_NEEDLES = ("sqlcmd", "docker", "mongo", "cqlsh", "storepass", "keypass", "pass:", "ldap", "az login",
                 "htpasswd", "rabbitmqctl", "smbclient", "freerdp", "net use", "sqlplus", "sqlldr", "expdp",
                 "impdp", "rman", "oracle:thin", "zip ", "7z")

#: Go MySQL DSNs: ``user:password@tcp(host:3306)/db``, ``@unix(/path)``.
_GO_DSN = re.compile(r"(?<![\w/:.-])[\w.-]{1,64}:(?P<bare>[^\s:@/\"'`]{1,256})@(?:tcp|unix|udp)\(")

#: ``expect "Password:"`` then ``send "...\r"`` (Tcl expect, pexpect ``sendline``).
_EXPECT_SEND = re.compile(
    r"(?i)\bexpect\b[^\n]{0,80}?(?:assword|passphrase|pass:|pin:)[^\n]*\n(?:[^\n]*\n){0,2}?[ \t]*"
    r"(?:[\w.]+\.)?send(?:line)?\b[ \t(]*(?:--[ \t]+)?(?P<quote>[\"'])(?P<quoted>[^\"'\n]{1,256})(?P=quote)")
#: Ansible ``expect`` responses: ``'Password:': '...'``.
_PROMPT_RESPONSE = re.compile(
    r"(?i)[\"'][^\"'\n]{0,40}(?:passw(?:or)?d|passphrase)[^\"'\n]{0,40}[\"'][ \t]*:[ \t]*"
    r"(?P<quote>[\"'])(?P<quoted>[^\"'\n]{1,256})(?P=quote)")

#: Network-device configs: ``username x password 0 ...``, ``enable secret 0 ...``, ``key 0 ...``,
#: ``snmp-server community ...``, ``crypto isakmp key ...``, FortiOS ``set psksecret ...``.
_DEVICE_SECRET = re.compile(
    r"(?im)(?:^|[ \t])(?P<name>password|secret|psksecret|passwd|key|community|pre-shared-key|"
    r"authentication-key)[ \t]+(?:[05789][ \t]+)?"
    r"(?:(?P<quote>\")(?P<quoted>[^\"\n]{1,256})\"|(?P<bare>[^\s\"]{1,256}))")
#: A line only a network device's config starts with.
_DEVICE_CONFIG = re.compile(r"(?m)^[ \t]*(?:hostname[ \t]|line[ \t]+(?:vty|con)|snmp-server|enable[ \t]+"
                            r"(?:secret|password)|username[ \t]+\S+[ \t]+(?:privilege|password|secret)|"
                            r"crypto[ \t]+isakmp|config[ \t]+(?:vpn|system)|radius|tacacs|key[ \t]+0)")
#: strongSwan ``ipsec.secrets``: ``%any host : PSK "..."``.
_IPSEC_SECRET = re.compile(r":[ \t]*(?:PSK|EAP|XAUTH)[ \t]+"
                           r"(?P<quote>[\"'])(?P<quoted>[^\"'\n]{1,256})(?P=quote)")

#: ``Authorization`` forms beside ``Authorization: <scheme> <token>``: a call's arguments
#: (``Header.Set("Authorization", "Bearer ...")``), nginx ``proxy_set_header Authorization "..."``,
#: a Postman ``"key": "Authorization", "value": "..."`` pair; Splunk and Opsgenie schemes.
_AUTHORIZATION_USE = re.compile(
    r"(?i)\bauthorization\\?[\"']?(?:[ \t]*,[ \t]*(?:[\"']value[\"'][ \t]*:[ \t]*)?"
    r"|[ \t]+(?=\\?[\"'])|[ \t]*[:=][ \t]*)\\?[\"']?[ \t]*"
    r"(?:(?:bearer|basic|token|splunk|geniekey|klaviyo-api-key|sso-key|ssws|apikey|api-key|key|"
    r"otp|hmac)[ \t]+)(?P<bare>[A-Za-z0-9._~+/=:-]{8,})")
#: ``btoa('user:password')``, ``b64encode(b"user:password")``: a Basic credential being built.
_BASIC_PAIR = re.compile(r"\b(?:btoa|b64encode|encodeToString|encode)\([ \t]*b?"
                         r"(?P<quote>[\"'])[^:\"'\n]{1,64}:"
                         r"(?P<quoted>[^\"'\n]{1,256})(?P=quote)")
_SESSION_COOKIE = re.compile(r"(?i)(?:\bcookie:[ \t]*|;[ \t]*)"
                             r"(?P<name>[\w.-]*(?:sess|sid|token|auth|remember)"
                             r"[\w.-]*)=(?P<bare>[^;\s\"']{16,})")
#: An old Vault service token: ``s.`` and 24 random letters and digits.
_OLD_VAULT_TOKEN = re.compile(r"s\.(?P<bare>[A-Za-z0-9]{24})(?![\w.])")

#: Rules for the lines holding a secret word (run in ``redact_structure``'s pass over them).
NAMED_LINE_RULES: list[LineRule] = [
    (_SETTER, "secret", lambda m, v: named_secret(m.group("name"), v, True), (".",)),
    (_LOOKUP_DEFAULT, "secret", lambda m, v: named_secret(m.group("name"), v, True), ("(",)),
    (_ENV_FALLBACK, "secret", lambda m, v: named_secret(m.group("name"), v, True), ("env.",)),
    (_VARIABLE_DEFAULT, "secret", lambda m, v: named_secret(m.group("name"), v, False), ("${",)),
    (_PROMPT_RESPONSE, "secret", lambda m, v: looks_like_password(v, True), (":",)),
    (_WORDPRESS_SALT, "secret", lambda m, v: len(set(v)) >= 12 and not _PHRASE.fullmatch(v), ("define",)),
]


def redact_usage(text: str, lower: str, replace: Replace) -> str:
    """``text`` with the secrets every usage rule finds replaced (``lower``: its ASCII-lowered
    copy, for the needles)."""
    if "(" in text and any(map(lower.__contains__, _CALL_NEEDLES)):
        text = _redact_calls(text, lower, replace)
    if any(map(lower.__contains__, _TOOL_NEEDLES)) or "ENV " in text:
        text = redact_lines(text, replace, (*_TOOL_NEEDLES, "env "), [(_TOOL_FLAGS, "secret", _password, ())])
    if "@tcp(" in text or "@unix(" in text or "@udp(" in text:
        text = sub(_GO_DSN, text, "url-credentials", _password, replace)
    if any(map(lower.__contains__, ('expect "', "expect '", "expect(", "expect -"))):
        text = sub(_EXPECT_SEND, text, "secret", _sent_password, replace)
    if _DEVICE_CONFIG.search(text):
        text = sub(_DEVICE_SECRET, text, "secret", _password, replace)
    if "authorization" in lower:
        text = sub(_AUTHORIZATION_USE, text, "authorization", lambda m, v: looks_random(v), replace)
    if "btoa(" in text or "b64encode(" in text or "encodeToString(" in text:
        text = sub(_BASIC_PAIR, text, "url-credentials", _password, replace)
    if "cookie" in lower:
        text = sub(_SESSION_COOKIE, text, "secret", lambda m, v: looks_random(v), replace)
    if "s." in text:
        text = sub(_OLD_VAULT_TOKEN, text, "vault-token", _old_vault_token, replace)
    if "PSK" in text or "EAP" in text:
        text = sub(_IPSEC_SECRET, text, "secret", _password, replace)
    return text


def _old_vault_token(match: re.Match[str], value: str) -> bool:
    before = match.string[match.start() - 1:match.start()]
    return not (before.isalnum() or before in "_.$") and _mixed(value)


def _mixed(value: str) -> bool:
    return (any(c.isupper() for c in value) and any(c.islower() for c in value)
            and sum(c.isdigit() for c in value) >= 2 and looks_random(value))


def _password(match: re.Match[str], value: str) -> bool:
    return looks_like_password(value, "quote" in match.re.groupindex and match.group("quote") is not None)


def _sent_password(match: re.Match[str], value: str) -> bool:
    for ending in ("\\r", "\\n"):
        value = value.removesuffix(ending)
    return looks_like_password(value, True)


def _redact_calls(text: str, lower: str, replace: Replace) -> str:
    """The password argument of each known connection or auth call, when it is a literal
    (calls found in the lowered text, same offsets)."""
    parts: list[str] = []
    done = 0
    for call in _CALL.finditer(lower):
        if call.start() < done:
            continue
        position = _PASSWORD_ARGUMENT[call.group("call").lower()]
        arguments = _arguments(text, call.end(), position)
        if call.group("call").lower() in ("connect", "transport.connect") and len(arguments) >= 2 \
                and (arguments[1].group("other") or "").strip().isdigit():
            position += 1  # connect(host, port, user, pw)
            arguments = _arguments(text, call.end(), position)
        if len(arguments) < position:
            continue
        argument = arguments[position - 1]
        value = argument.group("quoted")
        if value is None or not looks_like_password(value, True):
            continue
        start, end = argument.span("quoted")
        parts += [text[done:start], replace("secret", value)]
        done = end
    return "".join(parts) + text[done:] if parts else text


def _arguments(text: str, start: int, count: int) -> list[re.Match[str]]:
    """The first ``count`` simple arguments of a call whose ``(`` ends at ``start``."""
    found: list[re.Match[str]] = []
    position = start
    while len(found) < count:
        argument = _ARGUMENT.match(text, position)
        if argument is None:
            break
        found.append(argument)
        position = argument.end()
        if position >= len(text) or text[position] != ",":
            break
        position += 1
    return found

