"""Secrets found by where they stand rather than by their shape.

Credentials inside URLs (``postgres://user:pass@host``), ``Authorization:`` headers and
``curl -u``, values assigned to secret-named keys in YAML, INI, TOML, JSON, .env, XML,
command lines and code (``password: ...``, ``"api_key": "..."``, ``--token=...``, a
Kubernetes ``- name: DB_PASSWORD`` / ``value:`` pair), and every value under ``data:`` of a
Kubernetes ``kind: Secret``. Whether the value found is a credential is decided by
``ragloom.security.values``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragloom.security.values import looks_like_password, looks_random, shannon_entropy
from ragloom.security.words import (
    SECRET_WORD,
    SECRET_WORDS,
    LineRule,
    Replace,
    lowered,
    redact_lines,
    secret_word_hits,
    sub,
)

_PASSWORD_NAME = re.compile(r"(?i)pass|pwd|credential|masterauth|identified|securestring|authtok")
#: Names whose only secret word is a bare ``key`` (``ALGOLIA_ADMIN_KEY``, ``license.key``): a
#: value there must be long and random, as a dictionary or sort key in code never is.
_BARE_KEY_NAME = re.compile(r"(?i)[_.-]key$")
_KEY_WORD = re.compile(r"(?i)(?:api|access|private|signing|encryption|master|account|auth|secret)[_-]?key$")
MIN_BARE_KEY_LENGTH = 16
#: Secret-sounding names that hold something else: a file, a URL, a type, a length...
_NOT_SECRET_NAME = re.compile(
    r"(?i)(?:file|path|dir|env|var|name|type|len|length|size|url|uri|endpoint|header|field|"
    r"ttl|timeout|expiry|expires|expires_at|expires_in|count|prefix|format|pattern|regex|"
    r"policy|method|mode|scopes?|cmd|command|provider|kind|label|hint|prompt|store|manager|"
    r"class|module|backend|handler|validator|widget|form|view|serializer|hasher|reset|"
    r"changed?|required|enabled|index|char|chars|kind|offset|pos|start|end|ids)s?$")
#: Names that hold no secret though a secret word is in them: nginx's ``fastcgi_pass`` and
#: ``proxy_pass`` (an upstream address), a public key's token, a publishable key.
_PUBLIC_NAME = re.compile(r"(?i)^(?:fastcgi|proxy|uwsgi|scgi|grpc|memcached)_pass|public|publishable")

_NAME = rf"(?P<name>{SECRET_WORD}[A-Za-z0-9_.-]{{0,40}})"
_VALUE = (r"(?:&[\w-]{1,40}[ \t]+)?"  # a YAML anchor: ``password: &pw value``
          r"(?:[bBrRuU]{1,2}(?=[\"']))?(?:(?P<quote>\\?[\"'`])(?P<quoted>(?:[^\"'`\\\n]|\\[\"'])"
          r"{1,512})(?P=quote)|(?P<bare>[^\s\"'`,;&<>]{1,512}))")
#: name = value, name: value, "name": "value", name := value, name => value, name: str = value
_ASSIGNMENT = re.compile(
    rf"(?i){_NAME}(?:\\?[\"'])?\]?[ \t]*(?::=|=>|=(?![=~>])|:(?![:/\\])(?:[ \t]*[A-Za-z_][\w.\[\], |]"
    rf"{{0,40}}?[ \t]*=(?![=>]))?)[ \t]*{_VALUE}")
#: For the rules of other modules: a secret name (group ``name``), and the words in lowered text.
SECRET_NAME = _NAME
#: --password=value, --token value (command lines, Dockerfiles, CI scripts)
_FLAG = re.compile(rf"(?i)-(?<![\w-]-)-?(?P<name>[A-Za-z0-9-]*{SECRET_WORD}[A-Za-z0-9-]*)[ =]{_VALUE}")
#: Kubernetes/compose env entries: ``- name: DB_PASSWORD`` then ``value: ...`` on the next line.
_NAME_VALUE_PAIR = re.compile(
    rf"(?im)^[ \t]*-?[ \t]*name:[ \t]*[\"']?(?P<name>[A-Za-z0-9_.-]*{SECRET_WORD}[A-Za-z0-9_.-]*)"
    rf"[\"']?[ \t]*\r?\n[ \t]*value:[ \t]*{_VALUE}")
_XML_ELEMENT = re.compile(rf"(?i)<(?P<name>[\w:.-]*{SECRET_WORD}[\w:.-]*)>(?P<bare>[^<\s]{{1,512}})</")
_NETRC = re.compile(r"(?i)\blogin[ \t]+\S+[ \t]+(?P<name>password)[ \t]+(?P<bare>[^\s\"']+)(?=\s|$)")
#: Terraform: ``variable "db_password" { default = "..." }``
_TERRAFORM_DEFAULT = re.compile(
    rf"(?i)variable[ \t]+\"(?P<name>[\w-]*{SECRET_WORD}[\w-]*)\"[ \t]*\{{[^}}]{{0,400}}?"
    r"\bdefault[ \t]*=[ \t]*(?P<quote>\")(?P<quoted>[^\"\n]{1,512})\"")
#: Name/value attribute pairs: .NET ``<add key="DbPassword" value="..."/>``, Ant/Maven properties.
_ATTRIBUTE_PAIR = re.compile(
    rf"(?i)\b(?:key|name)[ \t]*=[ \t]*\"(?P<name>[\w.:-]*{SECRET_WORD}[\w.:-]*)\""
    r"[ \t]+value[ \t]*=[ \t]*(?P<quote>\")(?P<quoted>[^\"\n]{1,512})\"")
#: Space-separated config lines: ``requirepass <value>`` (redis.conf), ``password <value>``.
_SPACED_LINE = re.compile(
    rf"(?im)^[ \t]*(?P<name>[A-Za-z0-9_.-]*{SECRET_WORD}[A-Za-z0-9_.-]*)[ \t]+"
    r"(?P<bare>[^\s\"'`]{1,512})[ \t]*$")
#: A secret word then a quoted literal, no sign between: SQL ``WITH PASSWORD '...'``,
#: ``IDENTIFIED BY '...'``, PowerShell ``-Password "..."``, ``ConvertTo-SecureString "..."``.
_POSITIONAL = re.compile(
    rf"(?i)(?P<name>{SECRET_WORD}[A-Za-z0-9_-]{{0,40}}|identified[ \t]+by|securestring)[ \t]+"
    r"(?P<quote>[\"'])(?P<quoted>[^\"'\\\n]{1,512})(?P=quote)")
#: A .pgpass line: ``host:port:database:user:password``.
_PGPASS = re.compile(
    r"(?m)^[ \t]*(?P<name>[A-Za-z0-9_.*-]+:(?:\d{1,5}|\*):[^:\s]+:[^:\s]+):(?P<bare>\S+)[ \t]*$")

#: Password options of command-line clients that take the value glued or next to a short
#: flag with no secret word: ``mysql -p'...'`` (and mysqldump, mariadb...), ``sshpass -p ...``,
#: ``redis-cli -a ...``.
_TOOL_PASSWORD = re.compile(
    r"(?i)(?P<name>\b(?:mysql\w{0,10}|mariadb[\w-]{0,10})\b[^\n|;&]{0,200}?[ \t]-p"
    r"|\bsshpass[ \t]+-p[ \t]*|\bredis-cli\b[^\n|;&]{0,200}?[ \t]-a[ \t]+)"
    r"(?:(?P<quote>[\"'])(?P<quoted>[^\"'\n]{1,256})(?P=quote)|(?P<bare>[^\s\"']{1,256}))")

#: A token made the way many providers make them: a short lower-case prefix, ``_`` and a long
#: random run (``re_<8>_<24>``, ``rnd_<28>``, ``pcsk_<6>_<64>``), wherever it stands; the run
#: must mix upper case, lower case and digits, not spell words, and look random. Found from
#: the run (a pattern starting with ``_`` is scanned 7x faster), then the prefix before it.
_PREFIXED_RUN = re.compile(r"_(?P<bare>(?:[A-Za-z0-9]{4,16}_)?[A-Za-z0-9]{20,128})(?![A-Za-z0-9_-])")
_PREFIX_BEFORE = re.compile(r"(?<![A-Za-z0-9_.-])[a-z][a-z0-9]{1,9}(?:_[a-z0-9]{1,9}){0,2}\Z")
#: Words and numbers (``MultiLineString2D``, ``HTTPServer42``): an identifier, not a token.
_CAMEL_WORDS = re.compile(r"(?:[A-Z]?[a-z]{2,}|[A-Z]{2,}(?![a-z])|\d+)+")
MIN_PREFIXED_ENTROPY_BITS = 4.0

#: The secret half of a key pair passed beside its (already redacted) key id:
#: ``oss2.Auth('LTAI...', '<secret>')``, ``Session('AKIA...', '<secret>')``.
_KEY_PAIR = re.compile(r"\[REDACTED:(?:aws|alibaba)-access-key\][\"']?[ \t]*,[ \t]*"
                       r"(?P<quote>[\"'])(?P<quoted>[^\"'\n]{1,256})(?P=quote)")
_AUTH_TUPLE = re.compile(  # requests/httpx auth=("user", "pass"), HTTPBasicAuth("user", "pass")
    r"(?i)(?P<name>auth[ \t]*=[ \t]*\(|BasicAuth\()[ \t]*[\"'][^\"'\n]*[\"'][ \t]*,[ \t]*"
    r"(?P<quote>[\"'])(?P<quoted>[^\"'\n]{1,256})(?P=quote)")

#: A user name this long and random in a URL is a token (Sentry DSN keys are 32).
MIN_URL_TOKEN_LENGTH = 16
_URL_CREDENTIALS = re.compile(
    r"\b[A-Za-z][A-Za-z0-9+.-]{1,30}://(?P<user>[^\s:/?#@'\"<>\[\]{}\\]{0,256})"
    r"(?::(?P<bare>[^\s:/?@'\"<>\\]{1,256}))?@(?=[A-Za-z0-9\[_-])")
_AUTHORIZATION = re.compile(
    r"(?i)\b(?:proxy-)?authorization\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?[ \t]*"
    r"(?:(?P<scheme>bearer|basic|token|digest|ssws|apikey|api-key|key|sso-key|otp|hmac|"
    r"negotiate|ntlm)[ \t]+)?(?P<bare>[A-Za-z0-9._~+/=:-]{8,})")
_CURL_USER = re.compile(r"(?<![\w-])(?:-u|--user)(?:[ \t]+|=)[\"']?[^\s:'\"]+:(?P<bare>[^\s'\"]+)")

_K8S_SECRET = re.compile(r"(?m)^kind:[ \t]*[\"']?Secret[\"']?[ \t]*$")
_K8S_DATA = re.compile(r"(?P<indent>[ \t]*)(?:data|stringData):[ \t]*(?:#.*)?$")
_K8S_ENTRY = re.compile(r"[ \t]+[\"']?[\w.-]+[\"']?:[ \t]*(?P<value>\S.*?)[ \t]*$")


def redact_structure(text: str, replace: Replace, line_rules: Sequence[LineRule] = ()) -> str:
    """``text`` with the secrets every structural rule finds replaced. Each rule runs only
    on texts holding its key word (most files hold none: this keeps redaction fast)."""
    lower = lowered(text)  # same length and offsets as text
    if "kind:" in text:
        text = _redact_k8s_secrets(text, replace)
    if "://" in text and "@" in text:
        text = _URL_CREDENTIALS.sub(lambda match: _url_credentials(match, replace), text)
    if "authorization" in lower:
        text = sub(_AUTHORIZATION, text, "authorization", _authorization_secret, replace)
    if "-u" in text:
        text = sub(_CURL_USER, text, "url-credentials", lambda m, v: looks_like_password(v), replace)
    if "name:" in lower:
        text = sub(_NAME_VALUE_PAIR, text, "secret", _named_secret, replace)
    text = _redact_assignments(text, replace)
    if "-access-key]" in text:
        text = sub(_KEY_PAIR, text, "secret", lambda m, v: looks_random(v, quoted=True), replace)
    for pattern, needle in ((_NETRC, "login"), (_AUTH_TUPLE, "auth"), (_TERRAFORM_DEFAULT, "variable")):
        if needle in lower:
            text = sub(pattern, text, "secret", _named_secret, replace)
    text = redact_lines(text, replace, SECRET_WORDS,
                        [*line_rules, *((pattern, "secret", _named_secret, _LINE_NEEDLES[pattern])
                                      for pattern in _LINE_RULES)])
    if any(tool in lower for tool in ("mysql", "mariadb", "sshpass", "redis-cli")):
        text = sub(_TOOL_PASSWORD, text, "secret", lambda m, v: looks_like_password(v, True), replace)
    if "_" in text:
        text = _redact_prefixed_tokens(text, replace)
    if ":" in text:
        text = sub(_PGPASS, text, "secret", lambda m, v: looks_like_password(v), replace)
    return text


#: One-line rules, run only on the lines that hold a secret word (a case-insensitive scan of
#: the whole text per rule would cost more than every other rule together).
_LINE_RULES = (_FLAG, _XML_ELEMENT, _ATTRIBUTE_PAIR, _SPACED_LINE, _POSITIONAL)

_LINE_NEEDLES: dict[re.Pattern[str], tuple[str, ...]] = {
    _FLAG: ("-",), _XML_ELEMENT: ("<",), _ATTRIBUTE_PAIR: ("=",), _SPACED_LINE: (), _POSITIONAL: ("'", '"')}


def _redact_assignments(text: str, replace: Replace) -> str:
    """Values assigned to secret names: the names are found by a case-sensitive scan of the
    lowered text (3x faster than a case-insensitive one), the rest matched there."""
    parts: list[str] = []
    done = 0
    for hit in secret_word_hits(lowered(text)):
        if hit.start() < done:
            continue
        match = _ASSIGNMENT.match(text, hit.start())
        if match is None:
            continue
        group = "quoted" if match.group("quoted") is not None else "bare"
        if not _named_secret(match, match.group(group)) or _public_prefix(text, hit.start()):
            continue
        start, end = match.span(group)
        parts += [text[done:start], replace("secret", match.group(group))]
        done = end
    return "".join(parts) + text[done:] if parts else text


def _public_prefix(text: str, start: int) -> bool:
    """Whether the identifier the secret word at ``start`` ends says ``public``
    (``publicKeyToken``, ``STRIPE_PUBLISHABLE_KEY``)."""
    head = start
    while head > max(0, start - 40) and (text[head - 1].isalnum() or text[head - 1] in "_.-"):
        head -= 1
    return _PUBLIC_NAME.search(text, head, start) is not None


def _named_secret(match: re.Match[str], value: str) -> bool:
    quoted = "quoted" in match.re.groupindex and match.group("quoted") is not None
    return named_secret(match.group("name"), value, quoted)


def named_secret(name: str, value: str, quoted: bool) -> bool:
    """Whether ``value``, assigned to (or passed as) the secret-sounding ``name``, is a credential."""
    if _PUBLIC_NAME.search(name):
        return False
    if _NOT_SECRET_NAME.search(name.rstrip("_-.").rsplit("_", 1)[-1]) and not _ends_in_secret_word(name):
        return False
    if not quoted:
        value = value.rstrip(")}],")
    if _PASSWORD_NAME.search(name):
        return looks_like_password(value, quoted)
    if _BARE_KEY_NAME.search(name) and not _KEY_WORD.search(name):
        return len(value) >= MIN_BARE_KEY_LENGTH and looks_random(value, quoted)
    return looks_random(value, quoted)


def _redact_prefixed_tokens(text: str, replace: Replace) -> str:
    parts: list[str] = []
    done = 0
    for match in _PREFIXED_RUN.finditer(text):
        start = match.start()
        prefix = _PREFIX_BEFORE.search(text, max(0, start - 32), start)
        if prefix is None or start < done or not _prefixed_token(match.group("bare")):
            continue
        parts += [text[done:prefix.start()], replace("prefixed-token", text[prefix.start():match.end()])]
        done = match.end()
    return "".join(parts) + text[done:] if parts else text


def _prefixed_token(value: str) -> bool:
    run = value.rsplit("_", 1)[-1]
    return (any(c.isupper() for c in run) and any(c.islower() for c in run)
            and sum(c.isdigit() for c in run) >= 2 and not _CAMEL_WORDS.fullmatch(run)
            and shannon_entropy(value) >= MIN_PREFIXED_ENTROPY_BITS)


def _ends_in_secret_word(name: str) -> bool:
    return bool(re.search(rf"(?i){SECRET_WORD}$", name))


def _url_credentials(match: re.Match[str], replace: Replace) -> str:
    """The password of ``scheme://user:password@host``, or a token standing as the user
    (``https://<key>@sentry.io/1``, ``https://<token>@github.com``)."""
    group = "bare" if match.group("bare") is not None else "user"
    value = match.group(group)
    if not (looks_like_password(value) if group == "bare" else
            len(value) >= MIN_URL_TOKEN_LENGTH and looks_random(value)):
        return match.group(0)
    start, end = match.span(group)
    whole, offset = match.group(0), match.start()
    return whole[:start - offset] + replace("url-credentials", value) + whole[end - offset:]


def _authorization_secret(match: re.Match[str], value: str) -> bool:
    return looks_random(value)


def _redact_k8s_secrets(text: str, replace: Replace) -> str:
    """Every value under ``data:``/``stringData:`` of a ``kind: Secret`` manifest."""
    if not _K8S_SECRET.search(text):
        return text
    lines = text.splitlines(keepends=True)
    documents: list[list[int]] = [[]]
    for number, line in enumerate(lines):
        if line.startswith("---"):
            documents.append([])
        documents[-1].append(number)
    for document in documents:
        if not any(_K8S_SECRET.match(lines[n]) for n in document):
            continue
        data_indent: int | None = None
        block_indent: int | None = None
        for n in document:
            line = lines[n]
            body = line.rstrip("\r\n")
            indent = len(body) - len(body.lstrip(" \t"))
            if block_indent is not None and body.strip() and indent > block_indent:
                lines[n] = body[:indent] + replace("k8s-secret", body[indent:]) + line[len(body):]
                continue
            block_indent = None
            heading = _K8S_DATA.fullmatch(body)
            if heading:
                data_indent = len(heading.group("indent"))
                continue
            if data_indent is None or not body.strip() or body.lstrip().startswith("#"):
                continue
            if indent <= data_indent:
                data_indent = None
                continue
            entry = _K8S_ENTRY.fullmatch(body)
            if entry is None:
                continue
            value = entry.group("value")
            if value[:1] in "|>":
                block_indent = indent
                continue
            start, end = entry.span("value")
            lines[n] = body[:start] + replace("k8s-secret", value) + body[end:] + line[len(body):]
    return "".join(lines)
