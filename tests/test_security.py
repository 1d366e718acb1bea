"""Secret redaction: every well-known key format and random values assigned to secret
names are replaced, line numbers stay right, and ordinary code is left alone."""

from __future__ import annotations

import pytest

from ragloom.security import redact_secrets

# Format-correct fakes, built here so no file holds a whole token-shaped string.
FAKES = {
    "google-api-key": "AIza" + "SyD3" * 8 + "abc",
    "openai-key": "sk-proj-" + "Ab3dEf6hIj9kLm2n" * 3,
    "anthropic-key": "sk-ant-api03-" + "Xy7_Zw8-" * 12,
    "github-token": "ghp_" + "a1B2c3D4e5F6" * 3,
    "gitlab-token": "glpat-" + "Q1w2E3r4T5y6U7i8O9p0",
    "aws-access-key": "AKIA" + "IOSFODNN7EXAMPLE",
    "slack-token": "xoxb-" + "123456789012-abcdefABCDEF",
    "stripe-key": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "jwt": "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0."
           + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}


@pytest.mark.parametrize("kind", sorted(FAKES))
def test_every_key_format_is_redacted(kind: str) -> None:
    text = f"line one\nconfig value: {FAKES[kind]} (see docs)\nline three\n"
    redaction = redact_secrets(text)
    assert redaction.text == f"line one\nconfig value: [REDACTED:{kind}] (see docs)\nline three\n"
    assert redaction.kinds == {kind: 1}


def test_private_key_blocks_keep_their_line_count() -> None:
    block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAKC\n-----END RSA PRIVATE KEY-----"
    text = f"before\n{block}\nafter\n"
    redacted = redact_secrets(text).text
    assert redacted == "before\n[REDACTED:private-key]\n\n\n\nafter\n"
    assert redacted.count("\n") == text.count("\n")


@pytest.mark.parametrize("line", [
    'api_key = "Xk29fjQp0zLm2Rt8"',
    '"client_secret": "q8W3-e9R2t7Y1u4I6"',
    "DB_PASSWORD=Xk29!fjQp0zLm2",
    "export AUTH_TOKEN=7f3a9c0e1b2d4f6a8c0e",
    "password: 'S3cr3t-P4ss!word'",
])
def test_random_values_assigned_to_secret_names_are_redacted(line: str) -> None:
    redaction = redact_secrets(line + "\n")
    assert redaction.kinds == {"secret": 1}
    assert "[REDACTED:secret]" in redaction.text
    assert redaction.text.split("[REDACTED:secret]")[0] == line[:len(redaction.text.split("[REDACTED")[0])]


@pytest.mark.parametrize("line", [
    'token = "abc"',                                  # too short
    "password = get_password(user)",                  # code, not a value
    'api_key = os.environ["GEMINI_API_KEY"]',
    'secret_name = "database_password"',              # an identifier, not random
    'tokenizer = "whitespace_tokenizer"',
    'PASSWORD=${DB_PASSWORD}',                        # a reference to another variable
    "The api_key setting names the key; see the docs for how to create one.",
    "def check_password(password: str) -> bool:",
    "    token = line[start:pos]",                   # found in the standard library
    "        self._authkey = self._manager._authkey",
    "tokenize_module._tokenize = mock__tokenize",
    'PWD: "/home/user/project"',                     # a working directory, not a password
])
def test_ordinary_text_and_code_are_left_alone(line: str) -> None:
    assert redact_secrets(line + "\n").text == line + "\n"


def _fake(alphabet: str, length: int, seed: int = 7) -> str:
    """A deterministic random-looking string (tests build token-shaped values at run time)."""
    import random
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(length))


ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
HEX = "0123456789abcdef"

#: Provider formats beyond the first ones, as each provider documents them.
PROVIDER_FAKES = {
    "huggingface-token": "hf_" + _fake(ALNUM[:52], 34),
    "pypi-token": "pypi-AgEIcHlwaS5vcmc" + _fake(ALNUM, 80),
    "npm-token": "npm_" + _fake(ALNUM, 36),
    "azure-storage-key": "AccountKey=" + _fake(ALNUM + "+/", 86) + "==",
    "twilio-key": "SK" + _fake(HEX, 32),
    "sendgrid-key": "SG." + _fake(ALNUM, 22) + "." + _fake(ALNUM, 43),
    "digitalocean-token": "dop_v1_" + _fake(HEX, 64),
    "vault-token": "hvs." + _fake(ALNUM, 90),
    "telegram-bot-token": "1234567890:AA" + _fake(ALNUM, 33),
    "atlassian-token": "ATATT3xFfGF0" + _fake(ALNUM, 180),
    "slack-webhook": "https://hooks.slack.com/services/T0123ABCD/B0123ABCD/" + _fake(ALNUM, 24),
    "mailgun-key": "key-" + _fake(HEX, 32),
    "stripe-key": "sk_test_" + _fake(ALNUM, 40),
    "databricks-token": "dapi" + _fake(HEX, 32),
    "shopify-token": "shpat_" + _fake(HEX, 32),
    "square-token": "EAAA" + _fake(ALNUM, 60),
    "heroku-key": "HRKU-AA" + _fake(ALNUM, 58),
    "dockerhub-token": "dckr_pat_" + _fake(ALNUM, 27),
    "age-secret-key": "AGE-SECRET-KEY-1" + _fake("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
}


@pytest.mark.parametrize("kind", sorted(PROVIDER_FAKES))
def test_documented_provider_formats_are_redacted(kind: str) -> None:
    text = f"first\nsee {PROVIDER_FAKES[kind]} here\nlast\n"
    redaction = redact_secrets(text)
    assert PROVIDER_FAKES[kind] not in redaction.text
    assert f"[REDACTED:{kind}]" in redaction.text and redaction.kinds == {kind: 1}
    assert redaction.text.startswith("first\nsee ") and redaction.text.endswith(" here\nlast\n")


PASSWORD = "Falcon1987!"
TOKEN = _fake(ALNUM, 32, seed=3)


@pytest.mark.parametrize(("text", "secret", "kind"), [
    (f"DATABASE_URL=postgres://app:{PASSWORD}@db:5432/app\n", PASSWORD, "url-credentials"),
    (f"broker_url: redis://:{TOKEN}@redis:6379/0\n", TOKEN, "url-credentials"),
    (f'dsn="https://{_fake(HEX, 32)}@o1.ingest.sentry.io/2"\n', _fake(HEX, 32), "url-credentials"),
    (f"curl -H 'Authorization: Bearer {TOKEN}' https://api\n", TOKEN, "authorization"),
    (f'HEADERS = {{"Authorization": "Bearer {TOKEN}"}}\n', TOKEN, "authorization"),
    ("Authorization: Basic YWRtaW46RmFsY29uMTk4NyE=\n", "YWRtaW46RmFsY29uMTk4NyE=", "authorization"),
    (f"Authorization: SSWS 00{TOKEN}\n", f"00{TOKEN}", "authorization"),
    (f"curl -u backup:{PASSWORD} -T dump https://files\n", PASSWORD, "url-credentials"),
    (f"spring:\n  datasource:\n    password: {PASSWORD}\n", PASSWORD, "secret"),
    (f"[client]\npassword = {PASSWORD}\n", PASSWORD, "secret"),
    (f'[database]\npassword = "{PASSWORD}"\n', PASSWORD, "secret"),
    (f"export DB_PASSWORD={PASSWORD}\n", PASSWORD, "secret"),
    (f"mail.smtp.password={PASSWORD}\n", PASSWORD, "secret"),
    (f'{{"clientSecret": "{TOKEN}"}}\n', TOKEN, "secret"),
    (f"<server><password>{PASSWORD}</password></server>\n", PASSWORD, "secret"),
    (f'Server=sql01;User Id=sa;Password={PASSWORD};\n', PASSWORD, "secret"),
    (f"        'password' => '{PASSWORD}',\n", PASSWORD, "secret"),
    (f'\tapiToken := "{TOKEN}"\n', TOKEN, "secret"),
    (f'    "openai.api_key = \\"{TOKEN}\\"\\n",\n', TOKEN, "secret"),   # a notebook cell
    (f"    environment:\n      - MYSQL_ROOT_PASSWORD={PASSWORD}\n", PASSWORD, "secret"),
    (f"        - name: PAYMENTS_API_KEY\n          value: \"{TOKEN}\"\n", TOKEN, "secret"),
    (f"mysqldump --user=root --password='{PASSWORD}' shop\n", PASSWORD, "secret"),
    (f"machine files.acme.io login mirror password {PASSWORD}\n", PASSWORD, "secret"),
    (f'requests.get(URL, auth=("sync", "{PASSWORD}"))\n', PASSWORD, "secret"),
    (f'  "auth": "{TOKEN}="\n', f"{TOKEN}=", "secret"),                # docker config.json
    (f"oss2.Auth('LTAI{_fake(ALNUM, 20)}', '{TOKEN}')\n", TOKEN, "secret"),
    (f"CREATE USER reporting WITH PASSWORD '{PASSWORD}';\n", PASSWORD, "secret"),
    (f'$p = ConvertTo-SecureString "{PASSWORD}" -AsPlainText -Force\n', PASSWORD, "secret"),
    (f"requirepass {TOKEN}\n", TOKEN, "secret"),
    (f"db.internal:5432:app:app:{PASSWORD}\n", PASSWORD, "secret"),
    (f'variable "db_password" {{\n  default = "{PASSWORD}"\n}}\n', PASSWORD, "secret"),
    (f'<add key="DbPassword" value="{PASSWORD}" />\n', PASSWORD, "secret"),
    (f"ALGOLIA_ADMIN_KEY={_fake(HEX, 32)}\n", _fake(HEX, 32), "secret"),
])
def test_secrets_found_by_where_they_stand_are_redacted(text: str, secret: str, kind: str) -> None:
    redaction = redact_secrets(text)
    assert secret not in redaction.text
    assert f"[REDACTED:{kind}]" in redaction.text
    assert redaction.text.count("\n") == text.count("\n")


HEX32 = _fake(HEX, 32, seed=5)
TWITCH = _fake("abcdefghijklmnopqrstuvwxyz0123456789", 30)


@pytest.mark.parametrize(("text", "secret", "kind"), [
    # the second attack's misses (issue 27), each by the general rule that now finds it
    (f"export LANGSMITH_API_KEY=lsv2_pt_{HEX32}_{HEX32[:10]}\n", f"lsv2_pt_{HEX32}_{HEX32[:10]}",
     "secret"),                                               # a prefixed token is no snake name
    (f"const resend = new Resend('re_{TOKEN[:8]}_{TOKEN[8:]}');\n", f"re_{TOKEN[:8]}_{TOKEN[8:]}",
     "prefixed-token"),                                       # prefix_<random>, wherever it stands
    (f"render({{ key: rnd_{TOKEN} }})\n", f"rnd_{TOKEN}", "prefixed-token"),
    ("<tls-auth>\n-----BEGIN OpenVPN Static key V1-----\n" + f"{HEX32}\n" * 3
     + "-----END OpenVPN Static key V1-----\n</tls-auth>\n", HEX32, "private-key"),
    ("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + f"{TOKEN}\n" * 2
     + "-----END PGP PRIVATE KEY BLOCK-----\n", TOKEN, "private-key"),
    (f"Public-Lines: 1\nAAAAC3NzaC1lZDI1NTE5\nPrivate-Lines: 1\n{TOKEN}==\nPrivate-MAC: {HEX32}\n",
     f"{TOKEN}==", "putty-private-key"),
    (f"0 3 * * * mysqldump -u backup -p'{PASSWORD}' shop | gzip > shop.sql.gz\n", PASSWORD, "secret"),
    (f"mysql -h db -uroot -p{PASSWORD} shop < dump.sql\n", PASSWORD, "secret"),
    (f"sshpass -p '{PASSWORD}' ssh deploy@web1\n", PASSWORD, "secret"),
    (f"redis-cli -h cache -a {PASSWORD} ping\n", PASSWORD, "secret"),
    (f"url: https://acme.webhook.office.com/webhookb2/{HEX32}@{HEX32}/IncomingWebhook/{TOKEN}/{HEX32}\n",
     TOKEN, "teams-webhook"),
    (f"sock.send(b'PASS oauth:{TWITCH}\\r\\n')\n", TWITCH, "twitch-oauth"),
    (f'encrypt = "{TOKEN}+Q8=" \n', f"{TOKEN}+Q8=", "secret"),  # Consul/Nomad gossip key
    (f"ldap_default_authtok = {PASSWORD}\n", PASSWORD, "secret"),  # sssd
])
def test_second_attack_formats_are_redacted(text: str, secret: str, kind: str) -> None:
    redaction = redact_secrets(text)
    assert secret not in redaction.text
    assert f"[REDACTED:{kind}]" in redaction.text
    assert redaction.text.count("\n") == text.count("\n")


@pytest.mark.parametrize("text", [
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n",
    "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQENBF2\n-----END PGP PUBLIC KEY BLOCK-----\n",
    "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n",
    "test_MultiLineString2DGeometry = 1\n",                 # words and numbers: an identifier
    "value = sha3_256_0123456789abcdef\n",
    "mysql -u root -p shop\n",                                # -p alone: mysql prompts
    "ENCRYPT = True\nencrypt = 'AES'\n",
    "from_address = oauth:reset\n",
])
def test_the_second_attacks_rules_leave_look_alikes_alone(text: str) -> None:
    assert redact_secrets(text).text == text


def test_every_value_of_a_kubernetes_secret_is_redacted() -> None:
    user, password, blob = "YXBw", "RmFsY29uMTk4NyE=", "bGluZTEKbGluZTIK"
    text = ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\ntype: Opaque\ndata:\n"
            f"  username: {user}\n  db-pass: {password}\n  cert: |\n    {blob}\n    {blob}\n"
            "---\napiVersion: v1\nkind: ConfigMap\ndata:\n  mode: fast\n")
    redacted = redact_secrets(text).text
    assert user not in redacted and password not in redacted and blob not in redacted
    assert "metadata:\n  name: creds\n" in redacted and "  mode: fast\n" in redacted  # a ConfigMap
    assert redacted.count("\n") == text.count("\n")


@pytest.mark.parametrize("line", [
    "password='password1'",                                   # stand-ins found in real code
    "credentials = '{0}:{1}'.format(user, passwd).encode()",
    'exc._version_token = "".join(__version__.split(".")[0:2])',
    "DATABASE_URL=postgres://user:pass@localhost/db",
    "DATABASE_URL=postgres://app:${DB_PASSWORD}@db/app",
    "mhu = MultiHostUrl('https://foo.com:123,foo:bar@bar.com/path')",
    'curl -H "Authorization: Bearer $TOKEN" https://api',
    "token_type: bearer",
    "password_file: /run/secrets/db_password",
    'machine host.domain.com login log password "pass" account acct',
    "auth: true",
    "auth = HTTPBasicAuth(user, password)",
    "git clone git@github.com:acme/app.git",
    "    --password PASSWORD   the password to log in with",
    'raise ValueError("invalid token \'abc\'")',
    "RC2_KEY = rc2_key_st",
    "self.key = '_threading_local._localimpl.' + str(id(self))",
    "    pass",
])
def test_stand_ins_references_and_code_are_left_alone(line: str) -> None:
    assert redact_secrets(line + "\n").text == line + "\n"


def test_a_readers_error_message_is_redacted(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A parser's message that quotes the file (``line 3: password: ...``) reaches the
    report, the CLI and MCP only redacted."""
    from ragloom import RAGConfig
    from ragloom.indexing.reading import SkipFile, read_file
    from ragloom.readers import FileReaders

    class Failing:
        def read(self, relative: str, data: bytes) -> None:
            raise ValueError(f"cannot parse line 3: 'password: {PASSWORD}'")

    path = tmp_path / "app.yaml"
    path.write_text(f"password: {PASSWORD}\n", encoding="utf-8")
    readers = FileReaders(RAGConfig())
    monkeypatch.setattr(readers, "for_path", lambda relative: Failing())
    with pytest.raises(SkipFile) as skip:
        read_file(path, "app.yaml", 10_000, readers)
    assert PASSWORD not in str(skip.value) and "[REDACTED:secret]" in str(skip.value)
    assert str(skip.value).startswith("Failing failed: ValueError: cannot parse line 3")


@pytest.mark.parametrize(("path", "secret"), [
    (".env", True), ("config/.env.production", True), ("deploy/key.pem", True), ("id_rsa", True),
    ("secrets.yaml", True), ("credentials.json", True), ("gcp-credentials-prod.json", True),
    ("crates/vault/src/secrets.rs", False), ("app/credentials.py", False), ("lib/secrets.ts", False),
    # committed templates: the settings an app reads, placeholders for values (redacted anyway)
    (".env.example", False), ("playwright/.env.template", False), ("example.env", False),
    (".env.local.dist", False), (".env.sample", False), ("deploy/key.pem.example", False),
    # an env file with a marker before its last suffix is a template too
    (".env.example.complete", False), ("docker/.env.sample.docker", False),
    (".env.template.local", False), ("prod.example.env", False), (".env.local.example", False),
    (".env.testing", True), (".env.local", True), ("examples/.env", True), ("template.pem.key", True),
    (".env.production.local", True), ("example/.env.local", True), ("samples.env", True),
])
def test_secret_files_are_data_files_not_source_named_like_them(path: str, secret: bool) -> None:
    from ragloom.indexing.secret_files import is_secret_file
    assert is_secret_file(path) is secret


@pytest.mark.parametrize(("text", "expected"), [
    # how a value is used (issue 37): exactly the value goes, the code around it stays
    ('c = DriverManager.getConnection(url, "app", "Falcon1987!");\n',
     'c = DriverManager.getConnection(url, "app", "[REDACTED:secret]");\n'),
    ("client.connect('10.0.0.1', 22, 'deploy', 'Falcon1987!')\n",
     "client.connect('10.0.0.1', 22, 'deploy', '[REDACTED:secret]')\n"),
    ("'password' => env('DB_PASSWORD', 'Falcon1987!'),\n",
     "'password' => env('DB_PASSWORD', '[REDACTED:secret]'),\n"),
    ("sqlcmd -S db -U sa -P Falcon1987! -Q 'select 1'\n",
     "sqlcmd -S db -U sa -P [REDACTED:secret] -Q 'select 1'\n"),
    ('sql.Open("mysql", "shop:Falcon1987!@tcp(db:3306)/shop")\n',
     'sql.Open("mysql", "shop:[REDACTED:url-credentials]@tcp(db:3306)/shop")\n'),
    ('expect "Password:"\nsend "Falcon1987!\\r"\n', 'expect "Password:"\nsend "[REDACTED:secret]"\n'),
    (f"api_token: >-\n  {TOKEN}\nregion: eu\n", "api_token: >-\n  [REDACTED:secret]\nregion: eu\n"),
    (f'SECRET_KEY = (\n    "{TOKEN[:16]}"\n    "{TOKEN[16:]}"\n)\n',
     'SECRET_KEY = (\n    "[REDACTED:secret]"\n    "[REDACTED:secret]"\n)\n'),
    (f'api_keys = ["{TOKEN}", "{TOKEN[::-1]}"]\n',
     'api_keys = ["[REDACTED:secret]", "[REDACTED:secret]"]\n'),
    ("username admin privilege 15 password 0 Falcon1987!\nhostname r1\n",
     "username admin privilege 15 password 0 [REDACTED:secret]\nhostname r1\n"),
    (f'w = new ethers.Wallet("0x{HEX32 * 2}", p);\n',
     'w = new ethers.Wallet("0x[REDACTED:ethereum-private-key]", p);\n'),
    (f'client = PushClient("{_fake(ALNUM, 40, seed=11)}")\n',
     'client = PushClient("[REDACTED:random-literal]")\n'),
])
def test_secrets_found_by_how_they_are_used_are_redacted_exactly(text: str, expected: str) -> None:
    assert redact_secrets(text).text == expected


def test_the_fast_secret_word_scan_finds_what_the_pattern_finds() -> None:
    """``secret_word_hits`` (str.find of the words' starts, then the pattern) equals the
    pattern's own scan, on every text of the labelled sets and on this file."""
    from pathlib import Path

    from ragloom.security.words import SECRET_WORDS, lowered, secret_word_hits

    data = Path(__file__).parent / "data" / "secrets"
    texts = [path.read_text(encoding="utf-8") for path in sorted(data.glob("*.toml"))]
    texts.append(Path(__file__).read_text(encoding="utf-8"))
    for text in texts:
        lower = lowered(text)
        expected = [hit.span() for hit in SECRET_WORDS.finditer(lower)]
        assert [hit.span() for hit in secret_word_hits(lower)] == expected
