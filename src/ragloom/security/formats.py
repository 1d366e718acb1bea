"""Provider token formats: secrets recognisable by their shape alone, wherever they stand.

Each pattern is written from the provider's documented token format (its fixed prefix, its
alphabet and its length); values that have no fixed prefix (an AWS secret access key, a
Twilio auth token, a Cloudflare API token) are caught by the name they are assigned to
(``ragloom.security.structure``). Prefixes are what make these patterns safe on ordinary
text: none of them fires on the standard library.
"""

from __future__ import annotations

import re

_B64URL = r"[A-Za-z0-9_-]"
_ALNUM = r"[A-Za-z0-9]"
_HEX = r"[0-9a-f]"

#: kind -> regex of the whole secret value.
KEY_FORMATS: dict[str, str] = {
    # any armored block whose label names a key or secret but not a public one: PEM private
    # keys of every kind, PGP private key blocks, OpenVPN static keys, ...
    "private-key": r"-----BEGIN (?:(?!PUBLIC)[A-Za-z0-9 ]){0,40}(?:PRIVATE KEY|(?i:key\b)|SECRET)"
                   r"[A-Za-z0-9 ]{0,20}-----.*?(?:-----END [A-Za-z0-9 ]{1,60}-----|\Z)",
    # PuTTY key files (.ppk): the lines after ``Private-Lines: N``
    "putty-private-key": r"Private-Lines:[ \t]*\d+[ \t]*\r?\n(?:[A-Za-z0-9+/=]{4,}[ \t]*(?:\r?\n|\Z))+",
    # AI providers
    "anthropic-key": rf"\bsk-ant-(?:api|admin|sid|oat|ort)\d\d-{_B64URL}{{20,}}",
    "openai-key": rf"\bsk-(?:proj-|svcacct-|admin-|None-)?{_B64URL}{{20,}}",
    "huggingface-token": r"\b(?:hf_[A-Za-z]{30,40}|api_org_[A-Za-z]{30,40})\b",
    "groq-key": rf"\bgsk_{_ALNUM}{{48,56}}\b",
    "xai-key": rf"\bxai-{_ALNUM}{{70,90}}\b",
    "perplexity-key": rf"\bpplx-{_ALNUM}{{40,56}}\b",
    "replicate-token": rf"\br8_{_ALNUM}{{37}}\b",
    # code hosting and package registries
    "github-token": rf"\b(?:gh[pousr]_{_ALNUM}{{36,}}|github_pat_[A-Za-z0-9_]{{40,}})",
    "gitlab-token": rf"\b(?:glpat|gldt|glrt|glptt|glsoat|glcbt|gloas|glft|glimt|glagent|glwt)-"
                    rf"{_B64URL}{{20,}}|\bGR1348941{_B64URL}{{20,}}",
    "pypi-token": rf"\bpypi-AgE{_B64URL}{{50,}}",
    "npm-token": rf"\bnpm_{_ALNUM}{{36}}\b",
    "rubygems-key": rf"\brubygems_{_HEX}{{48}}\b",
    "nuget-key": r"\boy2[a-z0-9]{43}\b",
    "clojars-token": r"\bCLOJARS_[a-z0-9]{60}\b",
    "dockerhub-token": rf"\bdckr_(?:pat|oat)_{_B64URL}{{24,}}",
    "atlassian-token": r"\b(?:ATATT|ATCTT|ATOAT)3[A-Za-z0-9_=-]{100,}",
    "postman-key": rf"\bPMAK-{_HEX}{{24}}-{_HEX}{{34}}\b",
    "buildkite-token": rf"\bbkua_{_HEX}{{40}}\b",
    "linear-key": rf"\blin_(?:api|oauth)_{_ALNUM}{{40}}\b",
    "figma-token": rf"\bfig[dou]_{_B64URL}{{40,}}",
    "notion-token": rf"\b(?:secret_{_ALNUM}{{43}}|ntn_\d{{11}}{_ALNUM}{{35}})\b",
    "airtable-token": rf"pat(?<![A-Za-z0-9]pat){_ALNUM}{{14}}\.{_HEX}{{64}}\b",  # literal first: fast
    # cloud and infrastructure
    "aws-access-key": r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[0-9A-Z]{16}\b",
    "google-api-key": rf"\bAIza{_B64URL}{{35}}",
    "google-oauth-secret": rf"\bGOCSPX-{_B64URL}{{28}}",
    "google-oauth-token": rf"\bya29\.{_B64URL}{{30,}}|\b1//0{_B64URL}{{40,}}",
    "azure-storage-key": r"(?i:AccountKey|SharedAccessKey)=[A-Za-z0-9+/]{40,}={0,2}",
    "azure-sas-signature": r"\bsig=[A-Za-z0-9%+/]{30,}(?:%3D|=){0,2}",
    "azure-client-secret": r"(?<![A-Za-z0-9~._-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}"
                           r"(?![A-Za-z0-9~._-])",
    "digitalocean-token": rf"\bdo[opr]_v1_{_HEX}{{64}}\b",
    "heroku-key": rf"\bHRKU-(?:AA)?{_B64URL}{{56,60}}",
    "databricks-token": rf"\bdapi{_HEX}{{32}}(?:-\d)?\b",
    "cloudflare-origin-key": rf"\bv1\.0-{_HEX}{{24}}-{_HEX}{{146}}\b",
    "vault-token": rf"\bhv[sbr]\.{_B64URL}{{24,}}",
    "terraform-token": rf"\b{_ALNUM}{{14}}\.atlasv1\.{_B64URL}{{60,}}",
    "pulumi-token": rf"\bpul-{_HEX}{{40}}\b",
    "doppler-token": rf"\bdp\.(?:pt|st|sa|ct|scim|audit)\.{_ALNUM}{{40,44}}\b",
    "fly-token": r"\bfm[12]_[A-Za-z0-9+/=_,-]{40,}",
    "netlify-token": rf"\bnfp_{_ALNUM}{{36}}\b",
    "supabase-token": rf"\bsbp_{_HEX}{{40}}\b",
    "planetscale-token": rf"\bpscale_(?:tkn|pw|oauth)_{_B64URL}{{32,64}}",
    "tailscale-key": rf"\btskey-(?:api|auth|client|scim|webhook)-{_ALNUM}{{6,}}-{_ALNUM}{{20,}}",
    "grafana-token": rf"\b(?:glc_[A-Za-z0-9+/]{{32,}}={{0,2}}|glsa_{_ALNUM}{{32}}_{_HEX}{{8}})",
    "newrelic-key": r"\bNR(?:AK|II|JS)-[A-Za-z0-9]{27}\b",
    "dynatrace-token": r"\bdt0[a-z]\d\d\.[A-Z0-9]{24}\.[A-Z0-9]{64}\b",
    "sentry-token": rf"\b(?:sntrys_[A-Za-z0-9+/=_]{{60,}}|sntryu_{_HEX}{{64}})",
    "alibaba-access-key": r"\bLTAI[A-Za-z0-9]{12,20}\b",
    "age-secret-key": r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b",
    # messaging, payments, commerce, email
    "slack-token": r"\bxox[abposre]-[A-Za-z0-9-]{10,}|\bxapp-\d-[A-Z0-9]+-\d+-[a-z0-9]{32,}",
    "twitch-oauth": r"\boauth:[a-z0-9]{30}\b",
    "teams-webhook": r"https://[A-Za-z0-9-]+\.webhook\.office\.com/webhook(?:b2)?/[^\s\"'<>`]+"
                     r"|https://outlook\.office(?:365)?\.com/webhook/[^\s\"'<>`]+",
    "slack-webhook": r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{20,}",
    "discord-webhook": r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{40,}",
    "discord-bot-token": r"\b[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}\b",
    "fcm-server-key": rf"\bAAAA{_B64URL}{{7}}:APA91b{_B64URL}{{120,}}",
    "telegram-bot-token": r"(?<![0-9])\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])",
    "twilio-key": rf"\bSK{_HEX}{{32}}\b",
    "sendgrid-key": rf"\bSG\.{_B64URL}{{22}}\.{_B64URL}{{43}}",
    "mailgun-key": rf"\bkey-{_HEX}{{32}}\b|\b{_HEX}{{32}}-{_HEX}{{8}}-{_HEX}{{8}}\b",
    "mailchimp-key": rf"\b{_HEX}{{32}}-us\d{{1,2}}\b",
    "stripe-key": r"\b(?:[rs]k_(?:live|test)_[A-Za-z0-9]{20,}|whsec_[A-Za-z0-9]{32,})",
    "square-token": rf"\bEAAA{_B64URL}{{60}}|\bsq0(?:atp|csp|idp)-{_B64URL}{{22,43}}",
    "shopify-token": r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b",
    "shippo-token": rf"\bshippo_(?:live|test)_{_HEX}{{40}}\b",
    "mapbox-token": rf"\b[st]k\.eyJ{_B64URL}{{20,}}\.{_B64URL}{{20,}}",
    "contentful-token": rf"\bCFPAT-{_B64URL}{{43}}",
    "django-secret-key": r"\bdjango-insecure-[a-z0-9!@#$%^&*(\-_=+)]{40,50}",
    "jwt": rf"\beyJ{_B64URL}{{8,}}\.eyJ{_B64URL}{{8,}}\.{_B64URL}{{8,}}",
}

#: kind -> strings one of which every value of the kind contains: a format's regex runs only
#: on texts holding one (``str in`` is ~100x faster than a regex scan; most files hold none).
#: Discord bot tokens and new Mailgun keys have no prefix: looked for only where the text
#: names the provider.
NEEDLES: dict[str, tuple[str, ...]] = {
    "private-key": ("-----BEGIN ",),
    "putty-private-key": ("Private-Lines:",),
    "anthropic-key": ("sk-ant-",),
    "openai-key": ("sk-",),
    "huggingface-token": ("hf_", "api_org_"),
    "groq-key": ("gsk_",),
    "xai-key": ("xai-",),
    "perplexity-key": ("pplx-",),
    "replicate-token": ("r8_",),
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "gitlab-token": ("glpat-", "gldt-", "glrt-", "glptt-", "glsoat-", "glcbt-", "gloas-", "glft-",
                     "glimt-", "glagent-", "glwt-", "GR1348941"),
    "pypi-token": ("pypi-AgE",),
    "npm-token": ("npm_",),
    "rubygems-key": ("rubygems_",),
    "nuget-key": ("oy2",),
    "clojars-token": ("CLOJARS_",),
    "dockerhub-token": ("dckr_",),
    "atlassian-token": ("ATATT", "ATCTT", "ATOAT"),
    "postman-key": ("PMAK-",),
    "buildkite-token": ("bkua_",),
    "linear-key": ("lin_",),
    "figma-token": ("figd_", "figo_", "figu_"),
    "notion-token": ("secret_", "ntn_"),
    "airtable-token": ("pat",),
    "aws-access-key": ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA",
                       "APKA"),
    "google-api-key": ("AIza",),
    "google-oauth-secret": ("GOCSPX-",),
    "google-oauth-token": ("ya29.", "1//0"),
    "azure-storage-key": ("AccountKey=", "SharedAccessKey=", "accountkey=", "ACCOUNTKEY="),
    "azure-sas-signature": ("sig=",),
    "azure-client-secret": ("Q~",),
    "digitalocean-token": ("_v1_",),
    "heroku-key": ("HRKU-",),
    "databricks-token": ("dapi",),
    "cloudflare-origin-key": ("v1.0-",),
    "vault-token": ("hvs.", "hvb.", "hvr."),
    "terraform-token": (".atlasv1.",),
    "pulumi-token": ("pul-",),
    "doppler-token": ("dp.",),
    "fly-token": ("fm1_", "fm2_"),
    "netlify-token": ("nfp_",),
    "supabase-token": ("sbp_",),
    "planetscale-token": ("pscale_",),
    "tailscale-key": ("tskey-",),
    "grafana-token": ("glc_", "glsa_"),
    "newrelic-key": ("NRAK-", "NRII-", "NRJS-"),
    "dynatrace-token": ("dt0",),
    "sentry-token": ("sntrys_", "sntryu_"),
    "alibaba-access-key": ("LTAI",),
    "age-secret-key": ("AGE-SECRET-KEY-1",),
    "slack-token": ("xox", "xapp-"),
    "twitch-oauth": ("oauth:",),
    "teams-webhook": (".webhook.office.com/", "outlook.office"),
    "slack-webhook": ("hooks.slack.com",),
    "discord-webhook": ("/api/webhooks/",),
    "discord-bot-token": ("discord", "Discord", "DISCORD"),
    "fcm-server-key": (":APA91b",),
    "telegram-bot-token": (":AA",),
    "twilio-key": ("SK",),
    "sendgrid-key": ("SG.",),
    "mailgun-key": ("key-", "mailgun", "Mailgun", "MAILGUN"),
    "mailchimp-key": ("-us",),
    "stripe-key": ("k_live_", "k_test_", "whsec_"),
    "square-token": ("EAAA", "sq0"),
    "shopify-token": ("shp",),
    "shippo-token": ("shippo_",),
    "mapbox-token": ("k.eyJ",),
    "contentful-token": ("CFPAT-",),
    "django-secret-key": ("django-insecure-",),
    "jwt": ("eyJ",),
}

FORMATS = [(kind, re.compile(pattern, re.DOTALL), NEEDLES[kind]) for kind, pattern in KEY_FORMATS.items()]
