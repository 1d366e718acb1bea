"""Secret detection, measured: a labelled set of realistic fake secrets in realistic files,
and false-positive lines on real code, for each detector.

    python bench/secret_detection.py [--today REV] [--sample N] [--list-misses] [--list-false-positives FILE]

Detectors: ragloom today (``ragloom/security.py`` at git revision ``--today``, the code
before this measurement), Yelp's detect-secrets (``pip install detect-secrets``; every
plugin, its default filters, scanning each file under its own name) and ragloom now.

The set: every case is a small file as people write them (settings.py, docker-compose.yml,
a Kubernetes manifest, .env, a curl line in a README, a notebook...) holding one or more
secrets generated here at random in the provider's documented format (never real keys).
A secret counts as detected by ragloom when its value no longer appears in the redacted
text, and by detect-secrets when it reports the line that holds the value.

False positives: every line a detector changes (or reports) in the standard library's .py
files and in 5 popular packages (requests, django, flask, sqlalchemy, pydantic, rich).
detect-secrets scans at ~0.1 MB/s, so it is run on every N-th of those files (``--sample``).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import string
import subprocess
import sys
import sysconfig
import tempfile
import time
import types
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGES = ("requests", "django", "flask", "sqlalchemy", "pydantic", "rich")

#: lines a detector flags in a file's text: (file name, text) -> line numbers (1-based)
Detector = Callable[[str, str], set[int]]


@dataclass
class Measured:
    found: int = 0
    total: int = 0


LOWER, UPPER, DIGITS = string.ascii_lowercase, string.ascii_uppercase, string.digits
ALNUM = LOWER + UPPER + DIGITS
HEX = DIGITS + "abcdef"
B64URL = ALNUM + "_-"
B64 = ALNUM + "+/"


@dataclass
class Case:
    """One realistic file holding generated secrets."""

    family: str
    format: str
    file: str
    text: str
    secrets: list[str]


CASES: list[Callable[[random.Random], Case]] = []


def case(make: Callable[[random.Random], Case]) -> Callable[[random.Random], Case]:
    CASES.append(make)
    return make


def rand(rng: random.Random, alphabet: str, length: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def b64(rng: random.Random, raw_bytes: int) -> str:
    """Standard base64 of ``raw_bytes`` random bytes, with its padding."""
    import base64
    return base64.b64encode(rng.randbytes(raw_bytes)).decode()


def password(rng: random.Random) -> str:
    """A human-made password: a word, a number, maybe a symbol (``Falcon1987!``, ``maple42x``)."""
    word = rng.choice(["Falcon", "Orange", "Winter", "Maple", "Tiger", "Harbor", "Quartz", "Sunny"])
    style = rng.randrange(3)
    if style == 0:
        return f"{word}{rng.randint(10, 9999)}{rng.choice('!@#%&*?')}"
    if style == 1:
        return f"{word.lower()}{rng.randint(1, 99)}{rand(rng, LOWER, 2)}"
    return rand(rng, ALNUM + "!#%^*-_", 16)


def uuid(rng: random.Random) -> str:
    h = rand(rng, HEX, 32)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def pem(rng: random.Random, label: str, lines: int = 6, joiner: str = "\n") -> tuple[str, str]:
    """A PEM block of random base64 lines; (block, one body line as the secret to look for)."""
    body = [b64(rng, 48) for _ in range(lines)]
    block = joiner.join([f"-----BEGIN {label}-----", *body, f"-----END {label}-----"])
    return block, body[lines // 2]


def jwt(rng: random.Random) -> str:
    import base64
    import json

    def part(obj: object) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")
    claims = {"sub": str(rng.randint(10**6, 10**7)), "role": "service_role", "iat": 1716239022}
    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part(claims)}.{rand(rng, B64URL, 43)}"


# --- AI providers -----------------------------------------------------------------------
@case
def openai_project_key(rng: random.Random) -> Case:
    key = "sk-proj-" + rand(rng, B64URL, 156)
    return Case("ai", "openai-key", "settings.py", f'"""Settings."""\nimport os\n\nDEBUG = False\n'
                f'OPENAI_API_KEY = "{key}"\nMODEL = "gpt-4o-mini"\n', [key])


@case
def openai_legacy_in_notebook(rng: random.Random) -> Case:
    key = "sk-" + rand(rng, ALNUM, 20) + "T3BlbkFJ" + rand(rng, ALNUM, 20)
    text = ('{\n "cells": [\n  {\n   "cell_type": "code",\n   "execution_count": 1,\n'
            '   "metadata": {},\n   "outputs": [],\n   "source": [\n    "import openai\\n",\n'
            f'    "openai.api_key = \\"{key}\\"\\n",\n'
            f'    "resp = openai.Completion.create(model=\\"davinci\\")"\n'
            '   ]\n  }\n ],\n "metadata": {},\n "nbformat": 4,\n "nbformat_minor": 5\n}\n')
    return Case("ai", "openai-key", "explore.ipynb", text, [key])


@case
def anthropic_in_actions(rng: random.Random) -> Case:
    key = "sk-ant-api03-" + rand(rng, B64URL, 93) + "AA"
    return Case("ai", "anthropic-key", ".github/workflows/eval.yml",
                f"name: eval\non: [push]\njobs:\n  run:\n    runs-on: ubuntu-latest\n    env:\n"
                f"      ANTHROPIC_API_KEY: {key}\n    steps:\n      - uses: actions/checkout@v4\n"
                f"      - run: python eval.py\n", [key])


@case
def huggingface_cli(rng: random.Random) -> Case:
    token = "hf_" + rand(rng, LOWER + UPPER, 34)
    return Case("ai", "huggingface-token", "README.md",
                "## Setup\n\nLog in once so the gated model downloads:\n\n```bash\n"
                f"huggingface-cli login --token {token}\n```\n", [token])


@case
def huggingface_python(rng: random.Random) -> Case:
    token = "hf_" + rand(rng, LOWER + UPPER, 34)
    return Case("ai", "huggingface-token", "download.py",
                "from huggingface_hub import login, snapshot_download\n\n"
                f'login("{token}")\nsnapshot_download("meta-llama/Llama-3.1-8B")\n', [token])


@case
def groq_js(rng: random.Random) -> Case:
    key = "gsk_" + rand(rng, ALNUM, 52)
    return Case("ai", "groq-key", "src/llm.js",
                f"import Groq from 'groq-sdk';\n\nconst client = new Groq({{ apiKey: '{key}' }});\n"
                "export default client;\n", [key])


@case
def replicate_env(rng: random.Random) -> Case:
    token = "r8_" + rand(rng, ALNUM, 37)
    return Case("ai", "replicate-token", ".env.local", f"REPLICATE_API_TOKEN={token}\nPORT=3000\n", [token])


@case
def perplexity_toml(rng: random.Random) -> Case:
    key = "pplx-" + rand(rng, ALNUM, 48)
    return Case("ai", "perplexity-key", "config.toml",
                f'[llm]\nprovider = "perplexity"\nmodel = "sonar"\nkey = "{key}"\n', [key])


# --- code hosting, registries, developer tools ------------------------------------------
@case
def github_classic(rng: random.Random) -> Case:
    token = "ghp_" + rand(rng, ALNUM, 36)
    return Case("code-hosting", "github-token", "scripts/release.sh",
                "#!/usr/bin/env bash\nset -euo pipefail\n"
                f'curl -s -H "Authorization: token {token}" \\\n'
                '  https://api.github.com/repos/acme/app/releases\n', [token])


@case
def github_fine_grained_remote(rng: random.Random) -> Case:
    token = "github_pat_11" + rand(rng, UPPER + DIGITS, 20) + "_" + rand(rng, ALNUM, 59)
    return Case("code-hosting", "github-fine-grained", ".git/config",
                '[core]\n\trepositoryformatversion = 0\n[remote "origin"]\n'
                f"\turl = https://{token}@github.com/acme/app.git\n"
                "\tfetch = +refs/heads/*:refs/remotes/origin/*\n", [token])


@case
def github_oauth_hosts(rng: random.Random) -> Case:
    token = "gho_" + rand(rng, ALNUM, 36)
    return Case("code-hosting", "github-token", "hosts.yml",
                f"github.com:\n    user: octocat\n    oauth_token: {token}\n    git_protocol: https\n",
                [token])


@case
def gitlab_pat_header(rng: random.Random) -> Case:
    token = "glpat-" + rand(rng, B64URL, 20)
    return Case("code-hosting", "gitlab-token", "docs/api.md",
                "List the project's pipelines:\n\n```\ncurl --header "
                f'"PRIVATE-TOKEN: {token}" "https://gitlab.example.com/api/v4/projects/42/pipelines"\n```\n',
                [token])


@case
def gitlab_runner(rng: random.Random) -> Case:
    token = "glrt-" + rand(rng, B64URL, 20)
    return Case("code-hosting", "gitlab-token", "runner/config.toml",
                'concurrent = 4\n\n[[runners]]\n  name = "build-01"\n  url = "https://gitlab.com/"\n'
                f'  token = "{token}"\n  executor = "docker"\n', [token])


@case
def pypirc(rng: random.Random) -> Case:
    token = "pypi-AgEIcHlwaS5vcmc" + rand(rng, B64URL, 150)
    return Case("registries", "pypi-token", "pypirc.ini",
                "[distutils]\nindex-servers =\n    pypi\n\n[pypi]\nusername = __token__\n"
                f"password = {token}\n", [token])


@case
def npmrc(rng: random.Random) -> Case:
    token = "npm_" + rand(rng, ALNUM, 36)
    return Case("registries", "npm-token", "npmrc.txt",
                f"registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken={token}\n", [token])


@case
def rubygems(rng: random.Random) -> Case:
    key = "rubygems_" + rand(rng, HEX, 48)
    return Case("registries", "rubygems-key", "gem_credentials.yml",
                f"---\n:rubygems_api_key: {key}\n", [key])


@case
def dockerhub_pat(rng: random.Random) -> Case:
    token = "dckr_pat_" + rand(rng, B64URL, 27)
    return Case("registries", "dockerhub-token", "ci/publish.sh",
                f'#!/bin/sh\necho "{token}" | docker login -u acmebot --password-stdin\n'
                "docker push acme/app:latest\n", [token])


@case
def docker_config_auth(rng: random.Random) -> Case:
    import base64
    auth = base64.b64encode(f"acmebot:{password(rng)}".encode()).decode()
    return Case("registries", "docker-auth", "docker-config.json",
                '{\n\t"auths": {\n\t\t"https://index.docker.io/v1/": {\n'
                f'\t\t\t"auth": "{auth}"\n\t\t}}\n\t}},\n\t"credsStore": ""\n}}\n'.replace("}}", "}"),
                [auth])


@case
def atlassian(rng: random.Random) -> Case:
    token = "ATATT3xFfGF0" + rand(rng, B64URL, 170) + "=" + rand(rng, HEX.upper(), 8)
    return Case("dev-tools", "atlassian-token", "jira_sync.py",
                "from jira import JIRA\n\n"
                f'jira = JIRA("https://acme.atlassian.net", basic_auth=("bot@acme.io", "{token}"))\n',
                [token])


@case
def postman(rng: random.Random) -> Case:
    key = f"PMAK-{rand(rng, HEX, 24)}-{rand(rng, HEX, 34)}"
    return Case("dev-tools", "postman-key", "newman.sh",
                f"newman run https://api.getpostman.com/collections/123?apikey={key}\n", [key])


@case
def linear(rng: random.Random) -> Case:
    key = "lin_api_" + rand(rng, ALNUM, 40)
    return Case("dev-tools", "linear-key", "tools/linear.ts",
                f"export const linear = new LinearClient({{ apiKey: \"{key}\" }});\n", [key])


@case
def figma(rng: random.Random) -> Case:
    token = "figd_" + rand(rng, B64URL, 40)
    return Case("dev-tools", "figma-token", "export_icons.py",
                f'HEADERS = {{"X-Figma-Token": "{token}"}}\n', [token])


@case
def notion(rng: random.Random) -> Case:
    token = "ntn_" + rand(rng, DIGITS, 11) + rand(rng, ALNUM, 35)
    return Case("dev-tools", "notion-token", "notion.env", f"NOTION_KEY={token}\n", [token])


@case
def airtable(rng: random.Random) -> Case:
    token = "pat" + rand(rng, ALNUM, 14) + "." + rand(rng, HEX, 64)
    return Case("dev-tools", "airtable-token", "base.json",
                f'{{"baseId": "appXyz123", "personalAccessToken": "{token}"}}\n', [token])


# --- cloud and infrastructure ---------------------------------------------------------------
@case
def aws_credentials(rng: random.Random) -> Case:
    key_id = "AKIA" + rand(rng, UPPER + DIGITS, 16)
    secret = rand(rng, B64, 40)
    return Case("cloud", "aws-keys", "aws_credentials.ini",
                f"[default]\naws_access_key_id = {key_id}\naws_secret_access_key = {secret}\n"
                "region = eu-west-1\n", [key_id, secret])


@case
def aws_terraform(rng: random.Random) -> Case:
    key_id = "AKIA" + rand(rng, UPPER + DIGITS, 16)
    secret = rand(rng, B64, 40)
    return Case("cloud", "aws-keys", "main.tf",
                f'provider "aws" {{\n  region     = "us-east-1"\n  access_key = "{key_id}"\n'
                f'  secret_key = "{secret}"\n}}\n', [key_id, secret])


@case
def gcp_service_account(rng: random.Random) -> Case:
    block, body = pem(rng, "PRIVATE KEY", joiner="\\n")
    return Case("cloud", "gcp-service-account", "service-account.json",
                '{\n  "type": "service_account",\n  "project_id": "acme-prod",\n'
                f'  "private_key_id": "{rand(rng, HEX, 40)}",\n  "private_key": "{block}\\n",\n'
                '  "client_email": "indexer@acme-prod.iam.gserviceaccount.com",\n'
                '  "client_id": "104857600000000000000"\n}\n', [body])


@case
def google_api_key(rng: random.Random) -> Case:
    key = "AIza" + rand(rng, B64URL, 35)
    return Case("cloud", "google-api-key", "src/firebase.js",
                f'const firebaseConfig = {{\n  apiKey: "{key}",\n'
                f'  authDomain: "acme.firebaseapp.com",\n}};\n',
                [key])


@case
def google_oauth_client(rng: random.Random) -> Case:
    secret = "GOCSPX-" + rand(rng, B64URL, 28)
    return Case("cloud", "google-oauth-secret", "client_secret.json",
                '{"installed":{"client_id":"1234-abc.apps.googleusercontent.com",'
                f'"client_secret":"{secret}","redirect_uris":["http://localhost"]}}}}\n'
                f''.replace("}}}}", "}}"),
                [secret])


@case
def azure_storage(rng: random.Random) -> Case:
    key = b64(rng, 64)
    return Case("cloud", "azure-storage-key", "appsettings.json",
                '{\n  "ConnectionStrings": {\n'
                '    "Blobs": "DefaultEndpointsProtocol=https;AccountName=acmedata;'
                f'AccountKey={key};EndpointSuffix=core.windows.net"\n  }}\n}}\n'.replace("}}", "}"), [key])


@case
def azure_sas(rng: random.Random) -> Case:
    sig = b64(rng, 32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
    return Case("cloud", "azure-sas", "docs/download.md",
                "Download the dump:\n\n"
                "    https://acmedata.blob.core.windows.net/dumps/db.sql.gz?sv=2022-11-02"
                f"&ss=b&srt=o&sp=r&se=2026-12-31T00:00:00Z&spr=https&sig={sig}\n", [sig])


@case
def azure_client_secret(rng: random.Random) -> Case:
    secret = rand(rng, ALNUM, 3) + "8Q~" + rand(rng, ALNUM + "_~.-", 34)
    return Case("cloud", "azure-client-secret", "deploy/azure.env",
                f"AZURE_TENANT_ID={uuid(rng)}\nAZURE_CLIENT_ID={uuid(rng)}\nAZURE_CLIENT_SECRET={secret}\n",
                [secret])


@case
def digitalocean(rng: random.Random) -> Case:
    token = "dop_v1_" + rand(rng, HEX, 64)
    return Case("cloud", "digitalocean-token", "deploy.sh",
                f"export DIGITALOCEAN_ACCESS_TOKEN={token}\ndoctl apps create --spec app.yaml\n", [token])


@case
def heroku_netrc_doc(rng: random.Random) -> Case:
    key = "HRKU-AA" + rand(rng, B64URL, 58)
    return Case("cloud", "heroku-key", "docs/heroku.md",
                "Your `~/.netrc` then holds:\n\n```\nmachine api.heroku.com\n  login dev@acme.io\n"
                f"  password {key}\n```\n", [key])


@case
def heroku_legacy(rng: random.Random) -> Case:
    key = uuid(rng)
    return Case("cloud", "heroku-key", ".gitlab-ci.yml",
                f"deploy:\n  stage: deploy\n  variables:\n    HEROKU_API_KEY: {key}\n"
                "  script:\n    - dpl --provider=heroku --app=acme\n", [key])


@case
def databricks(rng: random.Random) -> Case:
    token = "dapi" + rand(rng, HEX, 32)
    return Case("cloud", "databricks-token", "databrickscfg.ini",
                f"[DEFAULT]\nhost = https://adb-1234567890.1.azuredatabricks.net\ntoken = {token}\n", [token])


@case
def cloudflare_token(rng: random.Random) -> Case:
    token = rand(rng, B64URL, 40)
    return Case("cloud", "cloudflare-token", ".github/workflows/deploy.yml",
                "jobs:\n  deploy:\n    steps:\n      - uses: cloudflare/wrangler-action@v3\n        with:\n"
                f"          apiToken: {token}\n", [token])


@case
def cloudflare_global_key(rng: random.Random) -> Case:
    key = rand(rng, HEX, 37)
    return Case("cloud", "cloudflare-key", "purge.sh",
                'curl -X POST "https://api.cloudflare.com/client/v4/zones/abc/purge_cache" \\\n'
                f'  -H "X-Auth-Email: ops@acme.io" -H "X-Auth-Key: {key}"\n', [key])


@case
def vault_token(rng: random.Random) -> Case:
    token = "hvs.CAESI" + rand(rng, B64URL, 86)
    return Case("cloud", "vault-token", "vault.sh",
                f"export VAULT_ADDR=https://vault.acme.io:8200\nexport VAULT_TOKEN={token}\n"
                "vault kv get secret/app\n", [token])


@case
def terraform_cloud(rng: random.Random) -> Case:
    token = rand(rng, ALNUM, 14) + ".atlasv1." + rand(rng, B64URL, 67)
    return Case("cloud", "terraform-token", "credentials.tfrc.json",
                f'{{\n  "credentials": {{\n    "app.terraform.io": {{\n      "token": "{token}"\n'
                f'    }}\n  }}\n}}\n',
                [token])


@case
def pulumi(rng: random.Random) -> Case:
    token = "pul-" + rand(rng, HEX, 40)
    return Case("cloud", "pulumi-token", "Makefile",
                f"deploy:\n\tPULUMI_ACCESS_TOKEN={token} pulumi up --yes\n", [token])


@case
def doppler(rng: random.Random) -> Case:
    token = "dp.pt." + rand(rng, ALNUM, 43)
    return Case("cloud", "doppler-token", "Dockerfile",
                f"FROM python:3.12-slim\nENV DOPPLER_TOKEN={token}\n"
                f"CMD [\"doppler\", \"run\", \"--\", \"app\"]\n",
                [token])


@case
def netlify(rng: random.Random) -> Case:
    token = "nfp_" + rand(rng, ALNUM, 36)
    return Case("cloud", "netlify-token", "netlify.sh", f"netlify deploy --prod --auth {token}\n", [token])


@case
def supabase(rng: random.Random) -> Case:
    token, role = "sbp_" + rand(rng, HEX, 40), jwt(rng)
    return Case("cloud", "supabase-keys", "supabase.ts",
                f"const SUPABASE_SERVICE_ROLE = '{role}'\n// CLI: supabase login --token {token}\n",
                [token, role])


@case
def tailscale(rng: random.Random) -> Case:
    key = "tskey-auth-" + rand(rng, ALNUM, 12) + "CNTRL-" + rand(rng, ALNUM, 33)
    return Case("cloud", "tailscale-key", "cloud-init.yaml",
                f"#cloud-config\nruncmd:\n  - ['sh', '-c', 'tailscale up --authkey={key}']\n", [key])


@case
def grafana(rng: random.Random) -> Case:
    token = f"glsa_{rand(rng, ALNUM, 32)}_{rand(rng, HEX, 8)}"
    return Case("cloud", "grafana-token", "grafana.ini",
                f"[dashboards]\nurl = https://grafana.acme.io\nservice_account = {token}\n", [token])


@case
def newrelic(rng: random.Random) -> Case:
    key = "NRAK-" + rand(rng, UPPER + DIGITS, 27)
    return Case("cloud", "newrelic-key", "newrelic.yml", f"common: &default\n  license: {key}\n", [key])


@case
def okta_ssws(rng: random.Random) -> Case:
    token = "00" + rand(rng, B64URL, 40)
    return Case("cloud", "okta-token", "okta.http",
                "GET https://acme.okta.com/api/v1/users?limit=25\nAccept: application/json\n"
                f"Authorization: SSWS {token}\n", [token])


@case
def alibaba(rng: random.Random) -> Case:
    key_id, secret = "LTAI" + rand(rng, ALNUM, 20), rand(rng, ALNUM, 30)
    return Case("cloud", "alibaba-keys", "oss.py",
                f"auth = oss2.Auth('{key_id}', '{secret}')\n", [key_id, secret])


@case
def age_key(rng: random.Random) -> Case:
    key = "AGE-SECRET-KEY-1" + rand(rng, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)
    return Case("cloud", "age-key", "keys.txt",
                f"# created: 2026-01-04T10:00:00Z\n"
                f"# public key: age1{rand(rng, LOWER + DIGITS, 58)}\n{key}\n",
                [key])


# --- messaging, payments, email, monitoring ----------------------------------------------
@case
def slack_bot(rng: random.Random) -> Case:
    token = f"xoxb-{rand(rng, DIGITS, 12)}-{rand(rng, DIGITS, 13)}-{rand(rng, ALNUM, 24)}"
    return Case("messaging", "slack-token", "bot.py",
                f'from slack_sdk import WebClient\n\nclient = WebClient(token="{token}")\n', [token])


@case
def slack_webhook(rng: random.Random) -> Case:
    url = (f"https://hooks.slack.com/services/T{rand(rng, UPPER + DIGITS, 10)}/"
           f"B{rand(rng, UPPER + DIGITS, 10)}/{rand(rng, ALNUM, 24)}")
    return Case("messaging", "slack-webhook", "alertmanager.yml",
                f"receivers:\n  - name: ops\n    slack_configs:\n      - api_url: {url}\n"
                "        channel: '#alerts'\n", [url.rsplit("/", 1)[1]])


@case
def discord_bot(rng: random.Random) -> Case:
    token = f"M{rand(rng, B64URL, 25)}.{rand(rng, B64URL, 6)}.{rand(rng, B64URL, 38)}"
    return Case("messaging", "discord-bot-token", "bot/main.py",
                f"import discord\n\nclient = discord.Client(intents=discord.Intents.default())\n"
                f"client.run('{token}')\n",
                [token])


@case
def discord_webhook(rng: random.Random) -> Case:
    secret = rand(rng, B64URL, 68)
    return Case("messaging", "discord-webhook", "notify.yaml",
                f"notify:\n"
                f"  url: https://discord.com/api/webhooks/{rand(rng, DIGITS, 18)}/{secret}\n", [secret])


@case
def telegram(rng: random.Random) -> Case:
    token = f"{rand(rng, DIGITS, 10)}:AA{rand(rng, B64URL, 33)}"
    return Case("messaging", "telegram-bot-token", "notify.sh",
                f'curl -s "https://api.telegram.org/bot{token}/sendMessage" -d chat_id=42 -d text=deployed\n',
                [token])


@case
def telegram_python(rng: random.Random) -> Case:
    token = f"{rand(rng, DIGITS, 9)}:AA{rand(rng, B64URL, 33)}"
    return Case("messaging", "telegram-bot-token", "tg.py",
                f'application = ApplicationBuilder().token("{token}").build()\n', [token])


@case
def twilio(rng: random.Random) -> Case:
    key, auth = "SK" + rand(rng, HEX, 32), rand(rng, HEX, 32)
    return Case("messaging", "twilio-keys", "twilio.env",
                f"TWILIO_ACCOUNT_SID=AC{rand(rng, HEX, 32)}\nTWILIO_API_KEY={key}\n"
                f"TWILIO_AUTH_TOKEN={auth}\n",
                [key, auth])


@case
def sendgrid(rng: random.Random) -> Case:
    key = f"SG.{rand(rng, B64URL, 22)}.{rand(rng, B64URL, 43)}"
    return Case("email", "sendgrid-key", "mail.py",
                f"sg = sendgrid.SendGridAPIClient('{key}')\n", [key])


@case
def mailgun(rng: random.Random) -> Case:
    key = "key-" + rand(rng, HEX, 32)
    return Case("email", "mailgun-key", "docs/email.md",
                f"```sh\ncurl -s --user 'api:{key}' \\\n"
                f"  https://api.mailgun.net/v3/mg.acme.io/messages\n```\n",
                [key])


@case
def mailgun_new(rng: random.Random) -> Case:
    key = f"{rand(rng, HEX, 32)}-{rand(rng, HEX, 8)}-{rand(rng, HEX, 8)}"
    return Case("email", "mailgun-key", "mailer.rb", f'Mailgun::Client.new("{key}", "api.eu.mailgun.net")\n',
                [key])


@case
def mailchimp(rng: random.Random) -> Case:
    key = f"{rand(rng, HEX, 32)}-us{rng.randint(1, 21)}"
    return Case("email", "mailchimp-key", "newsletter.php",
                f"<?php\n$mailchimp = new \\MailchimpMarketing\\ApiClient();\n"
                f"$mailchimp->setConfig(['apiKey' => '{key}', 'server' => 'us6']);\n", [key])


@case
def stripe_test(rng: random.Random) -> Case:
    key = "sk_test_" + rand(rng, ALNUM, 99)
    return Case("payments", "stripe-key", "checkout.js",
                f"const stripe = require('stripe')('{key}');\n", [key])


@case
def stripe_webhook(rng: random.Random) -> Case:
    secret, restricted = "whsec_" + rand(rng, ALNUM, 32), "rk_live_" + rand(rng, ALNUM, 99)
    return Case("payments", "stripe-key", "stripe.env",
                f"STRIPE_WEBHOOK_SECRET={secret}\nSTRIPE_RESTRICTED_KEY={restricted}\n", [secret, restricted])


@case
def square(rng: random.Random) -> Case:
    token = "EAAA" + rand(rng, B64URL, 60)
    return Case("payments", "square-token", "square.yaml",
                f"square:\n  environment: production\n  access_token: {token}\n", [token])


@case
def shopify(rng: random.Random) -> Case:
    token = "shpat_" + rand(rng, HEX, 32)
    return Case("payments", "shopify-token", "shopify.py",
                f'session = shopify.Session("acme.myshopify.com", "2024-07", "{token}")\n', [token])


@case
def sentry_dsn(rng: random.Random) -> Case:
    key = rand(rng, HEX, 32)
    return Case("monitoring", "sentry-dsn", "app/__init__.py",
                "import sentry_sdk\n\n"
                f'sentry_sdk.init(dsn="https://{key}@o{rand(rng, DIGITS, 6)}.ingest.sentry.io/'
                f'{rand(rng, DIGITS, 7)}",'
                " traces_sample_rate=0.1)\n", [key])


@case
def sentry_token(rng: random.Random) -> Case:
    token = "sntrys_eyJ" + rand(rng, B64URL, 120) + "_" + rand(rng, B64URL, 43)
    return Case("monitoring", "sentry-token", "sentryclirc.ini", f"[auth]\ntoken={token}\n", [token])


@case
def mapbox(rng: random.Random) -> Case:
    token = f"sk.eyJ{rand(rng, B64URL, 60)}.{rand(rng, B64URL, 22)}"
    return Case("monitoring", "mapbox-token", "map.md",
                f"Downloads need a secret token: `MAPBOX_DOWNLOADS_TOKEN={token}`\n", [token])


# --- structural: URLs, headers, named keys, manifests --------------------------------------
@case
def jwt_bearer_curl(rng: random.Random) -> Case:
    token = jwt(rng)
    return Case("headers", "authorization-bearer", "docs/api.md",
                f"```\ncurl https://api.acme.io/v1/me -H 'Authorization: Bearer {token}'\n```\n", [token])


@case
def opaque_bearer(rng: random.Random) -> Case:
    token = rand(rng, ALNUM, 40)
    return Case("headers", "authorization-bearer", "smoke.sh",
                f'curl -fsS -H "Accept: application/json" -H "Authorization: Bearer {token}" '
                "https://internal.acme.io/health\n", [token])


@case
def basic_header(rng: random.Random) -> Case:
    import base64
    value = base64.b64encode(f"admin:{password(rng)}".encode()).decode()
    return Case("headers", "authorization-basic", "requests.http",
                f"POST https://ci.acme.io/job/build\nAuthorization: Basic {value}\n", [value])


@case
def headers_in_python(rng: random.Random) -> Case:
    token = rand(rng, HEX, 48)
    return Case("headers", "authorization-bearer", "client.py",
                f'HEADERS = {{"Authorization": "Bearer {token}", "Accept": "application/json"}}\n', [token])


@case
def api_key_header(rng: random.Random) -> Case:
    key = rand(rng, ALNUM, 32)
    return Case("headers", "api-key-header", "search.sh",
                f"curl -H 'X-API-Key: {key}' https://search.acme.io/q?term=rust\n", [key])


@case
def curl_user(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("headers", "curl-user", "backup.sh",
                f"curl -u backup:{secret} -T dump.sql.gz https://files.acme.io/upload/\n", [secret])


@case
def postgres_url(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("urls", "db-url-password", "prod.env",
                f"DATABASE_URL=postgres://app:{secret}@db.internal:5432/app\n"
                f"REDIS_URL=redis://cache:6379/0\n",
                [secret])


@case
def mysql_url(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("urls", "db-url-password", "db.py",
                f'engine = create_engine("mysql+pymysql://root:{secret}@localhost:3306/shop")\n', [secret])


@case
def mongodb_url(rng: random.Random) -> Case:
    secret = rand(rng, ALNUM, 16)
    return Case("urls", "db-url-password", "db.js",
                f"await mongoose.connect('mongodb+srv://svc:{secret}@cluster0.ab1cd.mongodb.net/app');\n",
                [secret])


@case
def redis_url(rng: random.Random) -> Case:
    secret = rand(rng, ALNUM, 24)
    return Case("urls", "db-url-password", "celery.yaml",
                f"broker_url: redis://:{secret}@redis.internal:6379/0\n", [secret])


@case
def amqp_url(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("urls", "db-url-password", "worker.ini",
                f"[celery]\nbroker = amqp://worker:{secret}@rabbit.internal:5672/prod\n", [secret])


@case
def jdbc_query(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("urls", "db-url-password", "application.properties",
                f"spring.datasource.url=jdbc:mysql://db:3306/shop?user=shop&password={secret}&useSSL=true\n",
                [secret])


@case
def git_remote_password(rng: random.Random) -> Case:
    secret = rand(rng, ALNUM, 20)
    return Case("urls", "url-password", "git_config",
                f'[remote "origin"]\n\turl = https://deploy:{secret}@bitbucket.org/acme/app.git\n', [secret])


@case
def k8s_secret_data(rng: random.Random) -> Case:
    import base64
    user, secret = base64.b64encode(b"app").decode(), base64.b64encode(password(rng).encode()).decode()
    api = base64.b64encode(rand(rng, ALNUM, 32).encode()).decode()
    return Case("manifests", "k8s-secret-data", "k8s/secret.yaml",
                "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app-credentials\n  namespace: prod\n"
                f"type: Opaque\ndata:\n  username: {user}\n  db-pass: {secret}\n  upstream: {api}\n",
                [secret, api])


@case
def k8s_secret_string_data(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("manifests", "k8s-secret-data", "k8s/db.yaml",
                "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n"
                f"  POSTGRES_USER: app\n  POSTGRES_PASSWORD: \"{secret}\"\n", [secret])


@case
def k8s_env_pair(rng: random.Random) -> Case:
    secret = rand(rng, ALNUM, 24)
    return Case("manifests", "k8s-env-value", "k8s/deployment.yaml",
                "spec:\n  containers:\n    - name: api\n      image: acme/api:1.4\n      env:\n"
                f"        - name: PAYMENTS_API_KEY\n          value: \"{secret}\"\n"
                f"        - name: LOG_LEVEL\n"
                "          value: info\n", [secret])


@case
def compose(rng: random.Random) -> Case:
    first, second = password(rng), password(rng)
    return Case("manifests", "compose-env", "docker-compose.yml",
                "services:\n  db:\n    image: postgres:16\n    environment:\n"
                f"      POSTGRES_PASSWORD: {first}\n  mysql:\n    image: mysql:8\n    environment:\n"
                f"      - MYSQL_ROOT_PASSWORD={second}\n", [first, second])


@case
def yaml_password(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("config-keys", "yaml-password", "application.yml",
                "spring:\n  datasource:\n    url: jdbc:postgresql://db:5432/shop\n    username: shop\n"
                f"    password: {secret}\n", [secret])


@case
def ini_password(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("config-keys", "ini-password", "my.cnf",
                f"[client]\nuser = backup\npassword = {secret}\nhost = 127.0.0.1\n", [secret])


@case
def toml_password(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("config-keys", "toml-password", "settings.toml",
                f'[database]\nhost = "db.internal"\nuser = "app"\npassword = "{secret}"\n', [secret])


@case
def env_password(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("config-keys", "env-password", "env.production",
                f"NODE_ENV=production\nDB_HOST=db\nDB_PASSWORD={secret}\n", [secret])


@case
def json_client_secret(rng: random.Random) -> Case:
    secret = rand(rng, B64URL, 64)
    return Case("config-keys", "json-secret", "auth0.json",
                f'{{\n  "domain": "acme.eu.auth0.com",\n  "clientId": "{rand(rng, ALNUM, 32)}",\n'
                f'  "clientSecret": "{secret}"\n}}\n', [secret])


@case
def properties_password(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("config-keys", "properties-password", "mail.properties",
                f"mail.smtp.host=smtp.acme.io\nmail.smtp.user=noreply\n"
                f"mail.smtp.password={secret}\n", [secret])


@case
def xml_password(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("config-keys", "xml-password", "settings.xml",
                "<settings>\n  <servers>\n    <server>\n      <id>nexus</id>\n"
                "      <username>deploy</username>\n"
                f"      <password>{secret}</password>\n    </server>\n  </servers>\n</settings>\n", [secret])


@case
def connection_string(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("config-keys", "connection-string", "web.config",
                '<connectionStrings>\n  <add name="Default" connectionString="Server=sql01;Database=Shop;'
                f'User Id=sa;Password={secret};" />\n</connectionStrings>\n', [secret])


@case
def django_key(rng: random.Random) -> Case:
    key = "django-insecure-" + rand(rng, LOWER + DIGITS + "!@#$%^&*(-_=+)", 50)
    return Case("config-keys", "django-secret-key", "mysite/settings.py",
                f"# SECURITY WARNING: keep the secret key used in production secret!\nSECRET_KEY = '{key}'\n"
                "DEBUG = True\n", [key])


@case
def flask_key(rng: random.Random) -> Case:
    key = rand(rng, HEX, 64)
    return Case("config-keys", "flask-secret-key", "app.py",
                f'app = Flask(__name__)\napp.config["SECRET_KEY"] = "{key}"\n', [key])


@case
def rails_secret_base(rng: random.Random) -> Case:
    key = rand(rng, HEX, 128)
    return Case("config-keys", "rails-secret", "config/secrets.yml",
                f"production:\n  secret_key_base: {key}\n", [key])


@case
def php_array(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("config-keys", "php-password", "config/database.php",
                "<?php\nreturn [\n    'mysql' => [\n        'host' => '127.0.0.1',\n"
                "        'username' => 'shop',\n"
                f"        'password' => '{secret}',\n    ],\n];\n", [secret])


@case
def go_assignment(rng: random.Random) -> Case:
    token = rand(rng, ALNUM, 32)
    return Case("config-keys", "code-assignment", "main.go",
                f'package main\n\nfunc main() {{\n\tapiToken := "{token}"\n\trun(apiToken)\n}}\n', [token])


@case
def rust_assignment(rng: random.Random) -> Case:
    key = rand(rng, ALNUM + "_-", 40)
    return Case("config-keys", "code-assignment", "src/main.rs",
                f'fn main() {{\n    let api_key = "{key}";\n    client::connect(api_key);\n}}\n', [key])


@case
def encryption_key(rng: random.Random) -> Case:
    key = b64(rng, 32)
    return Case("config-keys", "base64-key", "vault-config.yaml",
                f"storage:\n  driver: s3\n  encryption_key: {key}\n", [key])


@case
def cli_flag(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("config-keys", "cli-password", "restore.sh",
                f"mysqldump --user=root --password='{secret}' shop > shop.sql\n", [secret])


@case
def netrc_doc(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("config-keys", "netrc", "docs/mirror.md",
                f"Add to `~/.netrc`:\n\n    machine files.acme.io login mirror password {secret}\n", [secret])


@case
def requests_auth(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("config-keys", "code-auth-tuple", "sync.py",
                f'resp = requests.get(URL, auth=("sync", "{secret}"), timeout=10)\n', [secret])


@case
def rsa_key_doc(rng: random.Random) -> Case:
    block, body = pem(rng, "RSA PRIVATE KEY", 10)
    return Case("private-keys", "rsa-private-key", "docs/ssh.md", f"The deploy key:\n\n```\n"
               f"{block}\n```\n", [body])


@case
def openssh_key(rng: random.Random) -> Case:
    block, body = pem(rng, "OPENSSH PRIVATE KEY", 7)
    return Case("private-keys", "openssh-private-key", "deploy_key.txt", block + "\n", [body])


@case
def ec_key_python(rng: random.Random) -> Case:
    block, body = pem(rng, "EC PRIVATE KEY", 3)
    return Case("private-keys", "ec-private-key", "sign.py", f'SIGNING_KEY = """{block}"""\n', [body])


@case
def pgp_key(rng: random.Random) -> Case:
    block, body = pem(rng, "PGP PRIVATE KEY BLOCK", 8)
    return Case("private-keys", "pgp-private-key", "release-key.asc", block + "\n", [body])


@case
def notebook_output(rng: random.Random) -> Case:
    token = "ghp_" + rand(rng, ALNUM, 36)
    text = ('{\n "cells": [\n  {\n   "cell_type": "code",\n   "outputs": [\n    {\n     "name": "stdout",\n'
            f'     "output_type": "stream",\n     "text": [\n      "GITHUB_TOKEN={token}\\n"\n'
            f'     ]\n    }}\n'
            '   ],\n   "source": [\n    "!env | grep TOKEN"\n   ]\n  }\n ],\n "nbformat": 4\n}\n')
    return Case("ai", "notebook-output", "debug.ipynb", text, [token])


# --- holdout: written after the detector was frozen, measured once, not tuned on ---------
HOLDOUT: list[Callable[[random.Random], Case]] = []


def holdout(make: Callable[[random.Random], Case]) -> Callable[[random.Random], Case]:
    HOLDOUT.append(make)
    return make


@holdout
def h_github_app_log(rng: random.Random) -> Case:
    token = "ghs_" + rand(rng, ALNUM, 36)
    return Case("holdout", "github-token", "logs/ci.log",
                f'2026-01-04 10:00:01 INFO got installation token {{"token": "{token}", '
                '"expires_at": "2026-01-04T11:00:01Z"}\n', [token])


@holdout
def h_openai_ts_default(rng: random.Random) -> Case:
    key = "sk-proj-" + rand(rng, B64URL, 120)
    return Case("holdout", "openai-key", "src/env.ts",
                f'export const OPENAI_KEY = process.env.OPENAI_KEY ?? "{key}";\n', [key])


@holdout
def h_anthropic_magic(rng: random.Random) -> Case:
    key = "sk-ant-api03-" + rand(rng, B64URL, 93) + "AA"
    return Case("holdout", "anthropic-key", "try.md",
                f"In the notebook:\n\n    %env ANTHROPIC_API_KEY={key}\n",
                [key])


@holdout
def h_boto_client(rng: random.Random) -> Case:
    secret = rand(rng, B64, 40)
    return Case("holdout", "aws-keys", "s3.py",
                "s3 = boto3.client('s3', aws_access_key_id=KEY_ID,\n"
                f"                  aws_secret_access_key='{secret}')\n", [secret])


@holdout
def h_helm_values(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("holdout", "yaml-password", "values.yaml",
                f"auth:\n  enabled: true\n  rootPassword: {secret}\n  username: app\n", [secret])


@holdout
def h_ansible_become(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("holdout", "yaml-password", "group_vars/all.yml",
                f"ansible_user: deploy\nansible_become_pass: {secret}\n", [secret])


@holdout
def h_redis_conf(rng: random.Random) -> Case:
    secret = rand(rng, ALNUM, 24)
    return Case("holdout", "config-password", "redis.conf",
                f"bind 127.0.0.1\nport 6379\nrequirepass {secret}\n", [secret])


@holdout
def h_pgpass(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("holdout", "pgpass", "docs/pgpass.md",
                f"Put this in `~/.pgpass`:\n\n    db.internal:5432:app:app:{secret}\n", [secret])


@holdout
def h_pgpassword_shell(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("holdout", "env-password", "restore.sh",
                f"PGPASSWORD='{secret}' psql -h db -U app -f dump.sql\n", [secret])


@holdout
def h_java_field(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("holdout", "code-assignment", "Db.java",
                f'class Db {{\n    private static final String PASSWORD = "{secret}";\n}}\n', [secret])


@holdout
def h_csharp(rng: random.Random) -> Case:
    key = rand(rng, ALNUM, 32)
    return Case("holdout", "code-assignment", "Client.cs", f'var apiKey = "{key}";\n', [key])


@holdout
def h_terraform_default(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("holdout", "terraform-default", "variables.tf",
                f'variable "db_password" {{\n  type    = string\n  default = "{secret}"\n}}\n', [secret])


@holdout
def h_docker_run(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("holdout", "cli-password", "README.md",
                f"```\ndocker run -d -e POSTGRES_PASSWORD={secret} -p 5432:5432 postgres:16\n```\n", [secret])


@holdout
def h_markdown_link(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("holdout", "url-password", "docs/dashboards.md",
                f"See [the dashboard](https://admin:{secret}@grafana.internal/d/abc).\n", [secret])


@holdout
def h_ssh_key_yaml(rng: random.Random) -> Case:
    block, body = pem(rng, "OPENSSH PRIVATE KEY", 5)
    indented = block.replace("\n", "\n    ")
    return Case("holdout", "private-key", "deploy.yaml", f"deploy:\n  ssh_key: |\n    {indented}\n", [body])


@holdout
def h_slack_user_go(rng: random.Random) -> Case:
    token = (f"xoxp-{rand(rng, DIGITS, 11)}-{rand(rng, DIGITS, 12)}-{rand(rng, DIGITS, 13)}-"
             f"{rand(rng, HEX, 32)}")
    return Case("holdout", "slack-token", "slack.go", f'api := slack.New("{token}")\n', [token])


@holdout
def h_fcm_server_key(rng: random.Random) -> Case:
    key = f"AAAA{rand(rng, B64URL, 7)}:APA91b{rand(rng, B64URL, 134)}"
    return Case("holdout", "fcm-server-key", "push.py", f"FCM_SERVER_KEY = '{key}'\n", [key])


@holdout
def h_cloudinary_url(rng: random.Random) -> Case:
    secret = rand(rng, B64URL, 27)
    return Case("holdout", "url-password", "cloudinary.env",
                f"CLOUDINARY_URL=cloudinary://{rand(rng, DIGITS, 15)}:{secret}@acme\n", [secret])


@holdout
def h_algolia_admin(rng: random.Random) -> Case:
    key = rand(rng, HEX, 32)
    return Case("holdout", "algolia-key", "search.env",
                f"ALGOLIA_APP_ID=ABC123\nALGOLIA_ADMIN_KEY={key}\n", [key])


@holdout
def h_pem_in_env(rng: random.Random) -> Case:
    block, body = pem(rng, "PRIVATE KEY", 4, joiner="\\n")
    return Case("holdout", "private-key", "app.env", f'PRIVATE_KEY="{block}"\n', [body])


@holdout
def h_unseal_table(rng: random.Random) -> Case:
    key = b64(rng, 32)
    return Case("holdout", "vault-unseal", "docs/runbook.md",
                f"| what | value |\n| --- | --- |\n| Unseal Key 1 | {key} |\n", [key])


@holdout
def h_jwt_secret(rng: random.Random) -> Case:
    secret = rand(rng, ALNUM + "!#%", 48)
    return Case("holdout", "env-secret", "api.env", f"JWT_SECRET={secret}\nJWT_TTL=3600\n", [secret])


@holdout
def h_psycopg(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("holdout", "code-kwarg", "etl.py",
                f'conn = psycopg2.connect(host="db", dbname="app", user="etl", password="{secret}")\n',
                [secret])


@holdout
def h_dotnet_app_setting(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("holdout", "xml-attribute", "App.config",
                f'<appSettings>\n  <add key="DbPassword" value="{secret}" />\n</appSettings>\n', [secret])


@holdout
def h_npmrc_auth(rng: random.Random) -> Case:
    import base64
    auth = base64.b64encode(f"ci:{password(rng)}".encode()).decode()
    return Case("holdout", "npm-auth", "npmrc-legacy.txt", f"_auth = {auth}\nalways-auth = true\n", [auth])


@holdout
def h_google_refresh(rng: random.Random) -> Case:
    token = "1//0" + rand(rng, B64URL, 96)
    return Case("holdout", "google-oauth-token", "token.json",
                f'{{"refresh_token": "{token}", "client_id": "x.apps.googleusercontent.com"}}\n', [token])


# --- unseen: written after the last change to the detector; measured, never tuned on -----
UNSEEN: list[Callable[[random.Random], Case]] = []


def unseen(make: Callable[[random.Random], Case]) -> Callable[[random.Random], Case]:
    UNSEEN.append(make)
    return make


@unseen
def u_gitlab_ci_variable(rng: random.Random) -> Case:
    token = "glpat-" + rand(rng, B64URL, 20)
    return Case("unseen", "gitlab-token", ".gitlab-ci.yml",
                "release:\n  script:\n"
                f"    - 'curl --request POST --header \"JOB-TOKEN: {token}\" $API/releases'\n",
                [token])


@unseen
def u_spring_properties_secret(rng: random.Random) -> Case:
    secret = rand(rng, ALNUM, 40)
    return Case("unseen", "properties-secret", "application-prod.properties",
                f"spring.security.oauth2.client.registration.github.client-secret={secret}\n", [secret])


@unseen
def u_yaml_nested_token(rng: random.Random) -> Case:
    token = rand(rng, ALNUM, 36)
    return Case("unseen", "yaml-token", "config/integrations.yaml",
                f"integrations:\n  pagerduty:\n    routing_key: {token}\n    severity: critical\n", [token])


@unseen
def u_python_dict_literal(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("unseen", "code-dict", "tests/conftest.py",
                f"DB = {{\n    'ENGINE': 'django.db.backends.postgresql',\n    'NAME': 'shop',\n"
                f"    'USER': 'shop',\n    'PASSWORD': '{secret}',\n}}\n", [secret])


@unseen
def u_js_object_password(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("unseen", "code-object", "knexfile.js",
                "module.exports = {\n  client: 'pg',\n  connection: { host: 'db', user: 'app', "
                f"password: '{secret}' }},\n}};\n", [secret])


@unseen
def u_ruby_env_fetch_default(rng: random.Random) -> Case:
    key = "sk_live_" + rand(rng, ALNUM, 24)
    return Case("unseen", "stripe-key", "config/initializers/stripe.rb",
                f"Stripe.api_key = ENV.fetch('STRIPE_SECRET_KEY', '{key}')\n", [key])


@unseen
def u_powershell(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("unseen", "powershell-password", "deploy.ps1",
                f'$Password = ConvertTo-SecureString "{secret}" -AsPlainText -Force\n', [secret])


@unseen
def u_mongo_uri_json(rng: random.Random) -> Case:
    secret = rand(rng, ALNUM, 18)
    return Case("unseen", "db-url-password", "appsettings.Development.json",
                f'{{ "Mongo": {{ "Uri": "mongodb://root:{secret}@mongo:27017/?authSource=admin" }} }}\n',
                [secret])


@unseen
def u_bearer_in_js_fetch(rng: random.Random) -> Case:
    token = rand(rng, B64URL, 48)
    return Case("unseen", "authorization-bearer", "src/api.js",
                f"fetch(url, {{ headers: {{ Authorization: 'Bearer {token}' }} }});\n", [token])


@unseen
def u_gh_token_in_markdown_prose(rng: random.Random) -> Case:
    token = "ghp_" + rand(rng, ALNUM, 36)
    return Case("unseen", "github-token", "CONTRIBUTING.md",
                f"If the API rate-limits you, I used my token {token} for the import; revoke it after.\n",
                [token])


@unseen
def u_ini_section_token(rng: random.Random) -> Case:
    token = rand(rng, HEX, 40)
    return Case("unseen", "ini-token", "setup.cfg",
                f"[codecov]\ntoken = {token}\n", [token])


@unseen
def u_env_quoted_secret(rng: random.Random) -> Case:
    secret = rand(rng, ALNUM + "+/", 44)
    return Case("unseen", "env-secret", "docker/.env.example.filled",
                f'NEXTAUTH_SECRET="{secret}"\nNEXTAUTH_URL=http://localhost:3000\n', [secret])


@unseen
def u_aws_session_token(rng: random.Random) -> Case:
    token = "IQoJb3JpZ2luX2VjE" + rand(rng, B64, 300)
    return Case("unseen", "aws-session-token", "creds.sh",
                f"export AWS_SESSION_TOKEN={token}\n", [token])


@unseen
def u_toml_inline_table(rng: random.Random) -> Case:
    key = rand(rng, ALNUM, 32)
    return Case("unseen", "toml-key", "pyproject.toml",
                f'[tool.deploy]\ntargets = {{ staging = {{ host = "s1", api_key = "{key}" }} }}\n', [key])


@unseen
def u_sql_create_user(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("unseen", "sql-password", "migrations/001_users.sql",
                f"CREATE USER reporting WITH PASSWORD '{secret}';\n", [secret])


@unseen
def u_kotlin_const(rng: random.Random) -> Case:
    token = rand(rng, ALNUM, 32)
    return Case("unseen", "code-assignment", "Config.kt", f'const val MAPS_TOKEN = "{token}"\n', [token])


@unseen
def u_webhook_secret_yaml_quoted(rng: random.Random) -> Case:
    secret = rand(rng, HEX, 40)
    return Case("unseen", "yaml-secret", "argocd-cm.yaml",
                f'data:\n  webhook.github.secret: "{secret}"\n', [secret])


@unseen
def u_openai_in_json_log(rng: random.Random) -> Case:
    key = "sk-proj-" + rand(rng, B64URL, 100)
    return Case("unseen", "openai-key", "debug.jsonl",
                f'{{"level":"debug","msg":"request","headers":{{"authorization":"Bearer {key}"}}}}\n', [key])


@unseen
def u_basic_auth_url_in_python(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("unseen", "url-password", "mirror.py",
                f'PROXY = {{"https": "http://proxyuser:{secret}@proxy.corp:3128"}}\n', [secret])


@unseen
def u_rsa_in_json_escaped(rng: random.Random) -> Case:
    block, body = pem(rng, "RSA PRIVATE KEY", 5, joiner="\\n")
    return Case("unseen", "private-key", "jwt-keys.json", f'{{"kid": "k1", "pem": "{block}"}}\n', [body])


@unseen
def u_hf_in_yaml_ci(rng: random.Random) -> Case:
    token = "hf_" + rand(rng, LOWER + UPPER, 34)
    return Case("unseen", "huggingface-token", "azure-pipelines.yml",
                f"variables:\n  HUGGING_FACE_HUB_TOKEN: {token}\n", [token])


@unseen
def u_npm_token_in_yarnrc(rng: random.Random) -> Case:
    token = "npm_" + rand(rng, ALNUM, 36)
    return Case("unseen", "npm-token", ".yarnrc.yml",
                f'npmRegistries:\n  "https://registry.npmjs.org":\n    npmAuthToken: "{token}"\n', [token])


# --- second unseen set (issue 27, second attack): formats and file types none of the sets
# above has, written from the providers' documented token formats before the detector was
# looked at again; measured before any fix ------------------------------------------------
SECOND: list[Callable[[random.Random], Case]] = []


def second(make: Callable[[random.Random], Case]) -> Callable[[random.Random], Case]:
    SECOND.append(make)
    return make


BASE32_LOWER = LOWER + "234567"


@second
def s_xai_in_r(rng: random.Random) -> Case:
    key = "xai-" + rand(rng, ALNUM, 80)
    return Case("second", "xai-key", "analysis/setup.R",
                f'library(httr2)\nSys.setenv(XAI_API_KEY = "{key}")\nresp <- request(base_url) |>\n'
                "  req_perform()\n", [key])


@second
def s_openrouter_in_lua(rng: random.Random) -> Case:
    key = "sk-or-v1-" + rand(rng, HEX, 64)
    return Case("second", "openrouter-key", "nvim/lua/plugins/ai.lua",
                'return {\n  "olimorris/codecompanion.nvim",\n  opts = {\n    adapters = {\n'
                f'      openrouter = {{ api_key = "{key}", model = "anthropic/claude-3.5-sonnet" }},\n'
                "    },\n  },\n}\n", [key])


@second
def s_langsmith_in_envrc(rng: random.Random) -> Case:
    key = "lsv2_pt_" + rand(rng, HEX, 32) + "_" + rand(rng, HEX, 10)
    return Case("second", "langsmith-key", ".envrc",
                f"layout python3\nexport LANGCHAIN_TRACING_V2=true\nexport LANGSMITH_API_KEY={key}\n", [key])


@second
def s_pinecone_in_elixir(rng: random.Random) -> Case:
    key = "pcsk_" + rand(rng, ALNUM, 6) + "_" + rand(rng, ALNUM, 64)
    return Case("second", "pinecone-key", "config/runtime.exs",
                "import Config\n\nconfig :search, Search.Vectors,\n"
                f'  api_key: "{key}",\n  index: "docs-prod"\n', [key])


@second
def s_render_in_justfile(rng: random.Random) -> Case:
    key = "rnd_" + rand(rng, ALNUM, 28)
    return Case("second", "render-key", "Justfile",
                f'export RENDER_API_KEY := "{key}"\n\ndeploy:\n    render deploys create srv-abc123\n',
                [key])


@second
def s_planetscale_in_go_struct(rng: random.Random) -> Case:
    secret = "pscale_pw_" + rand(rng, B64URL, 43)
    return Case("second", "planetscale-password", "internal/db/db.go",
                "cfg := mysql.Config{\n\tUser:   \"k3v9q2m1x8\",\n"
                f'\tPasswd: "{secret}",\n\tNet:    "tcp",\n\tAddr:   "aws.connect.psdb.cloud",\n}}\n',
                [secret])


@second
def s_buildkite_in_pipeline(rng: random.Random) -> Case:
    token = "bkua_" + rand(rng, HEX, 40)
    return Case("second", "buildkite-token", ".buildkite/pipeline.yml",
                "steps:\n  - label: ':rocket: release'\n    command: scripts/release.sh\n    env:\n"
                f"      BUILDKITE_API_TOKEN: {token}\n", [token])


@second
def s_sourcegraph_in_vscode_settings(rng: random.Random) -> Case:
    token = "sgp_" + rand(rng, HEX, 16) + "_" + rand(rng, HEX, 40)
    return Case("second", "sourcegraph-token", ".vscode/settings.json",
                '{\n  "editor.formatOnSave": true,\n  "cody.serverEndpoint": "https://sourcegraph.acme.dev",\n'
                f'  "cody.accessToken": "{token}"\n}}\n', [token])


@second
def s_dynatrace_in_helm_values(rng: random.Random) -> Case:
    token = "dt0c01." + rand(rng, UPPER + DIGITS, 24) + "." + rand(rng, UPPER + DIGITS, 64)
    return Case("second", "dynatrace-token", "charts/app/values-prod.yaml",
                "oneagent:\n  enabled: true\n  apiUrl: https://abc12345.live.dynatrace.com/api\n"
                f"  apiToken: {token}\n", [token])


@second
def s_contentful_in_gatsby(rng: random.Random) -> Case:
    token = "CFPAT-" + rand(rng, B64URL, 43)
    return Case("second", "contentful-token", "gatsby-config.js",
                "module.exports = {\n  plugins: [{\n    resolve: 'gatsby-source-contentful',\n"
                f"    options: {{ spaceId: 'x1y2z3', accessToken: process.env.CF_TOKEN || '{token}' }},\n"
                "  }],\n};\n", [token])


@second
def s_asana_in_swift(rng: random.Random) -> Case:
    token = f"2/{rng.randint(10**15, 10**16 - 1)}/{rng.randint(10**15, 10**16 - 1)}:" + rand(rng, HEX, 32)
    return Case("second", "asana-token", "Sources/Sync/AsanaClient.swift",
                f'struct AsanaClient {{\n    let token = "{token}"\n    let workspace = "acme"\n}}\n',
                [token])


@second
def s_azure_devops_pat_in_nuget_config(rng: random.Random) -> Case:
    pat = rand(rng, BASE32_LOWER, 52)
    return Case("second", "azure-devops-pat", "NuGet.Config",
                '<?xml version="1.0" encoding="utf-8"?>\n<configuration>\n  <packageSourceCredentials>\n'
                '    <AcmeFeed>\n      <add key="Username" value="build" />\n'
                f'      <add key="ClearTextPassword" value="{pat}" />\n'
                "    </AcmeFeed>\n  </packageSourceCredentials>\n</configuration>\n", [pat])


@second
def s_twitch_irc_in_python(rng: random.Random) -> Case:
    token = rand(rng, LOWER + DIGITS, 30)
    return Case("second", "twitch-oauth", "bot/irc.py",
                "sock = socket.create_connection(('irc.chat.twitch.tv', 6667))\n"
                f"sock.send(b'PASS oauth:{token}\\r\\n')\nsock.send(b'NICK acme_bot\\r\\n')\n", [token])


@second
def s_swarm_join_token(rng: random.Random) -> Case:
    token = "SWMTKN-1-" + rand(rng, LOWER + DIGITS, 50) + "-" + rand(rng, LOWER + DIGITS, 25)
    return Case("second", "swarm-join-token", "provision/join-worker.sh",
                f"#!/bin/sh\ndocker swarm join --token {token} 10.0.0.10:2377\n", [token])


@second
def s_kafka_jaas(rng: random.Random) -> Case:
    secret = rand(rng, B64, 64)
    return Case("second", "kafka-jaas", "client.properties",
                "bootstrap.servers=pkc-abcd.eu-west-1.aws.confluent.cloud:9092\nsecurity.protocol=SASL_SSL\n"
                "sasl.mechanism=PLAIN\n"
                "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule "
                f'required username="{rand(rng, UPPER + DIGITS, 16)}" password="{secret}";\n', [secret])


@second
def s_wireguard(rng: random.Random) -> Case:
    key = b64(rng, 32)
    return Case("second", "wireguard-key", "wg0.conf",
                f"[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = {key}\nDNS = 1.1.1.1\n\n[Peer]\n"
                f"PublicKey = {b64(rng, 32)}\nEndpoint = vpn.acme.dev:51820\nAllowedIPs = 0.0.0.0/0\n", [key])


@second
def s_openvpn_static_key(rng: random.Random) -> Case:
    lines = [rand(rng, HEX, 32) for _ in range(16)]
    label = "OpenVPN Static key V1"
    block = "\n".join([f"-----BEGIN {label}-----", *lines, f"-----END {label}-----"])
    return Case("second", "openvpn-static-key", "client.ovpn",
                "client\ndev tun\nproto udp\nremote vpn.acme.dev 1194\nkey-direction 1\n"
                f"<tls-auth>\n{block}\n"
                "</tls-auth>\n", [lines[7]])


@second
def s_putty_ppk(rng: random.Random) -> Case:
    private = b64(rng, 48)
    return Case("second", "putty-private-key", "keys/deploy.ppk",
                "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy@build\n"
                f"Public-Lines: 2\n{b64(rng, 48)}\n{b64(rng, 3)}\nPrivate-Lines: 1\n{private}\n"
                f"Private-MAC: {rand(rng, HEX, 64)}\n", [private])


@second
def s_kubeconfig_client_key(rng: random.Random) -> Case:
    data = b64(rng, 240)
    return Case("second", "kubeconfig-key", "kubeconfig",
                "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n"
                f"    client-certificate-data: {b64(rng, 120)}\n    client-key-data: {data}\n", [data])


@second
def s_gradle_signing(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("second", "gradle-password", "app/build.gradle",
                "android {\n    signingConfigs {\n        release {\n"
                "            storeFile file('release.jks')\n"
                f"            storePassword \"{secret}\"\n            keyAlias 'release'\n"
                "        }\n    }\n}\n",
                [secret])


@second
def s_redis_url_without_user(rng: random.Random) -> Case:
    secret = rand(rng, ALNUM, 32)
    return Case("second", "url-password", "config/cable.yml",
                f"production:\n  adapter: redis\n  url: rediss://:{secret}@cache.acme.internal:6380/1\n",
                [secret])


@second
def s_jdbc_query_password_hocon(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("second", "jdbc-password", "conf/application.conf",
                "db.default {\n  driver = org.postgresql.Driver\n"
                f'  url = "jdbc:postgresql://db:5432/app?user=app&password={secret}&ssl=true"\n}}\n',
                [secret])


@second
def s_systemd_environment(rng: random.Random) -> Case:
    token = rand(rng, HEX, 40)
    return Case("second", "systemd-env", "deploy/worker.service",
                "[Unit]\nDescription=Acme worker\n\n[Service]\n"
                f'Environment="API_TOKEN={token}"\nExecStart=/usr/bin/acme-worker\n', [token])


@second
def s_crontab_mysqldump(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("second", "cli-password", "crontab.txt",
                "# m h dom mon dow command\n"
                f"0 3 * * * mysqldump -u backup -p'{secret}' shop | gzip > /srv/shop.sql.gz\n",
                [secret])


@second
def s_google_chat_webhook(rng: random.Random) -> Case:
    token = rand(rng, B64URL, 43)
    return Case("second", "chat-webhook", "src/notify.ts",
                "const WEBHOOK = 'https://chat.googleapis.com/v1/spaces/AAAAq1w2e3r/messages"
                f"?key=AIzaSy{rand(rng, B64URL, 33)}&token={token}%3D';\n", [token])


@second
def s_teams_webhook(rng: random.Random) -> Case:
    secret = rand(rng, HEX, 32)
    return Case("second", "teams-webhook", "alerts/routes.yaml",
                "receivers:\n  - name: teams\n    url: https://acme.webhook.office.com/webhookb2/"
                f"{uuid(rng)}@{uuid(rng)}/IncomingWebhook/{secret}/{uuid(rng)}\n", [secret])


@second
def s_resend_in_deno(rng: random.Random) -> Case:
    key = "re_" + rand(rng, ALNUM, 8) + "_" + rand(rng, ALNUM, 24)
    return Case("second", "resend-key", "supabase/functions/send/index.ts",
                f"import {{ Resend }} from 'npm:resend';\nconst resend = new Resend('{key}');\n", [key])


@second
def s_flutterwave_in_dart(rng: random.Random) -> Case:
    key = "FLWSECK-" + rand(rng, HEX, 32) + "-X"
    return Case("second", "flutterwave-key", "lib/payments.dart",
                f"const flwSecret = '{key}';\nfinal client = Flutterwave(secret: flwSecret);\n", [key])


@second
def s_consul_gossip_key(rng: random.Random) -> Case:
    key = b64(rng, 32)
    return Case("second", "consul-gossip-key", "consul.d/server.hcl",
                f'datacenter = "eu1"\nserver = true\nencrypt = "{key}"\nbootstrap_expect = 3\n', [key])


@second
def s_ansible_inventory_inline(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("second", "ansible-inline", "inventory/hosts.ini",
                "[web]\n"
                f"web1 ansible_host=10.0.0.5 ansible_user=deploy ansible_password={secret} ansible_port=22\n",
                [secret])


@second
def s_libpq_conninfo(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("second", "conninfo-password", "postgresql.auto.conf",
                f"primary_conninfo = 'host=10.0.0.4 port=5432 user=replicator password={secret} "
                "sslmode=require'\n",
                [secret])


@second
def s_odbc_pwd_python(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("second", "odbc-password", "reports/export.py",
                "conn = pyodbc.connect('DRIVER={ODBC Driver 18 for SQL Server};SERVER=sql.acme.local;'\n"
                f"                      'DATABASE=sales;UID=report;PWD={secret}')\n", [secret])


@second
def s_sssd_authtok(rng: random.Random) -> Case:
    secret = password(rng)
    return Case("second", "ldap-authtok", "sssd.conf",
                "[domain/acme.local]\nid_provider = ldap\nldap_uri = ldaps://ldap.acme.local\n"
                f"ldap_default_bind_dn = cn=sssd,dc=acme,dc=local\nldap_default_authtok = {secret}\n",
                [secret])


@second
def s_github_actions_vercel(rng: random.Random) -> Case:
    token = rand(rng, ALNUM, 24)
    return Case("second", "vercel-token", ".github/workflows/preview.yml",
                "jobs:\n  deploy:\n    steps:\n      - uses: amondnet/vercel-action@v25\n        with:\n"
                f"          vercel-token: {token}\n          vercel-org-id: team_abc\n", [token])


@second
def s_laravel_app_key(rng: random.Random) -> Case:
    key = "base64:" + b64(rng, 32)
    return Case("second", "laravel-app-key", ".env.testing.local",
                f"APP_NAME=Shop\nAPP_ENV=testing\nAPP_KEY={key}\nAPP_DEBUG=true\n", [key[7:]])


SET_NOTES = {
    "holdout": "written when the main set reached 100%; first measured at 18/26, then the general "
               "rules it showed missing were added",
    "unseen": "written after the holdout's rules; first measured at 20/22 (90.9%: the figure to "
              "expect on new secrets), then the positional-password rule it showed missing was added",
    "second": "second attack (issue 27): formats and file types no set above has, written before the "
              "detector was read again; first measured at 26/35 (74.3%), then the general rules its 9 "
              "misses showed were added",
}


def redaction_detector(redact: Callable[[str], str]) -> Detector:
    """A ragloom-style redactor as a detector: the lines whose text it changed."""
    def flags(name: str, text: str) -> set[int]:
        after = redact(text)
        if after.count("\n") != text.count("\n"):
            raise AssertionError(f"{name}: redaction changed the number of lines")
        return {n for n, (old, new) in enumerate(zip(text.splitlines(), after.splitlines()), 1)
                if old != new}
    return flags


def today_redactor(revision: str) -> Callable[[str], str] | None:
    """``redact_secrets`` of ragloom/security.py at a git revision (before this change)."""
    try:
        source = subprocess.run(["git", "show", f"{revision}:src/ragloom/security.py"],
                                capture_output=True, text=True, check=True,
                                cwd=Path(__file__).resolve().parent).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    module = types.ModuleType("ragloom_security_today")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, f"{revision}:security.py", "exec"), module.__dict__)
    return lambda text: module.redact_secrets(text).text


def detect_secrets_detector() -> Detector | None:
    """detect-secrets with every plugin and its default filters, scanning a file named
    like the case (its filters and plugins look at the file name and extension)."""
    if importlib.util.find_spec("detect_secrets") is None:
        return None
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    def flags(name: str, text: str) -> set[int]:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / Path(name).name
            path.write_text(text, encoding="utf-8")
            collection = SecretsCollection()
            with default_settings():
                collection.scan_file(str(path))
            return {secret.line_number for _, secret in collection}
    return flags


def detection(detectors: dict[str, Detector], redactors: dict[str, Callable[[str], str]],
              cases: list[Case], list_misses: bool) -> None:
    """Per format family and per format: share of the secrets each detector finds."""
    by_family: dict[tuple[str, str], Measured] = defaultdict(Measured)
    by_format: dict[tuple[str, str], Measured] = defaultdict(Measured)
    misses: list[str] = []
    for case in cases:
        for name, detector in detectors.items():
            flagged = detector(case.file, case.text)
            redacted = redactors[name](case.text) if name in redactors else None
            for secret in case.secrets:
                if redacted is not None:
                    hit = secret not in redacted
                else:
                    line = case.text[:case.text.index(secret)].count("\n") + 1
                    hit = line in flagged
                for table, key in ((by_family, case.family), (by_format, case.format)):
                    table[name, key].total += 1
                    table[name, key].found += hit
                if not hit and name == "ragloom" and list_misses:
                    misses.append(f"  {case.format} in {case.file}: {secret[:60]}")
    names = list(detectors)
    formats = sorted({case.format for case in cases})
    print(f"set: {sum(len(c.secrets) for c in cases)} secrets in {len(formats)} formats, "
          f"{len(cases)} files\n")
    for title, table, keys in (("family", by_family, sorted({c.family for c in cases})),
                               ("format", by_format, formats)):
        print(f"| {title} | secrets | " + " | ".join(names) + " |")
        print("| --- | ---: | " + " | ".join("---:" for _ in names) + " |")
        for key in keys:
            total = table[names[0], key].total
            print(f"| {key} | {total} | " + " | ".join(
                str(table[name, key].found) for name in names) + " |")
        totals = [sum(m.found for (n, _), m in table.items() if n == name) for name in names]
        everything = sum(m.total for (n, _), m in table.items() if n == names[0])
        print(f"| **all** | {everything} | " + " | ".join(
            f"{found} ({found / everything:.1%})" for found in totals) + " |\n")
    if misses:
        print("ragloom misses:\n" + "\n".join(misses) + "\n")


def real_files() -> Iterator[tuple[Path, str]]:
    """The standard library's .py files, then those of the popular packages."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    purelib = Path(sysconfig.get_paths()["purelib"])
    files = [p for p in sorted(stdlib.rglob("*.py")) if "site-packages" not in p.parts]
    for package in PACKAGES:
        files += sorted((purelib / package).rglob("*.py"))
    for path in files:
        try:
            yield path, path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue


def false_positives(detectors: dict[str, Detector], sample: int, listing: str | None) -> None:
    """Lines each detector flags in real code: every file for the redactors, every
    ``sample``-th file for all detectors."""
    corpus = list(real_files())
    stdlib = str(Path(sysconfig.get_paths()["stdlib"]))
    runs = [("every file", corpus, {n: d for n, d in detectors.items() if n != "detect-secrets"})]
    if "detect-secrets" in detectors:
        runs.append((f"every {sample}th file", corpus[::sample], detectors))
    lines: list[str] = []
    for label, files, measured in runs:
        megabytes = sum(len(text) for _, text in files) / 1e6
        print(f"false positives, {label}: {len(files)} files, {megabytes:.1f} MB")
        print("| detector | stdlib lines | packages lines | MB/s |\n| --- | ---: | ---: | ---: |")
        for name, detector in measured.items():
            started = time.perf_counter()
            counts = {True: 0, False: 0}
            for path, text in files:
                flagged = detector(path.name, text)
                counts[str(path).startswith(stdlib) and "site-packages" not in path.parts] += len(flagged)
                if name == "ragloom" and label == "every file":
                    source = text.splitlines()
                    lines += [f"{path}:{n}: {source[n - 1].strip()[:160]}" for n in sorted(flagged)]
            rate = megabytes / (time.perf_counter() - started)
            print(f"| {name} | {counts[True]} | {counts[False]} | {rate:.2f} |")
        print()
    if listing:
        Path(listing).write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"ragloom's false-positive lines written to {listing}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--today", default="d099f01", help="git revision of today's redaction")
    parser.add_argument("--sample", type=int, default=10, help="detect-secrets on every N-th real file")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated secrets")
    parser.add_argument("--list-misses", action="store_true", help="print the secrets ragloom misses")
    parser.add_argument("--list-false-positives", help="write ragloom's flagged real lines here")
    parser.add_argument("--no-false-positives", action="store_true", help="only the detection table")
    args = parser.parse_args()
    from ragloom.security import redact_secrets

    redactors: dict[str, Callable[[str], str]] = {}
    today = today_redactor(args.today)
    if today is not None:
        redactors["today"] = today
    else:
        print(f"revision {args.today} not found: today's redaction not measured", file=sys.stderr)
    detectors: dict[str, Detector] = {name: redaction_detector(r) for name, r in redactors.items()}
    other = detect_secrets_detector()
    if other is not None:
        detectors["detect-secrets"] = other
    else:
        print("detect-secrets not installed: not measured", file=sys.stderr)
    redactors["ragloom"] = lambda text: redact_secrets(text).text
    detectors["ragloom"] = redaction_detector(redactors["ragloom"])
    cases = [make(random.Random(f"{args.seed}:{make.__name__}")) for make in CASES]
    detection(detectors, redactors, cases, args.list_misses)
    for title, makers in (("holdout", HOLDOUT), ("unseen", UNSEEN), ("second", SECOND)):
        print(f"{title} set ({SET_NOTES[title]}):")
        extra = [make(random.Random(f"{args.seed}:{make.__name__}")) for make in makers]
        detection(detectors, redactors, extra, args.list_misses)
    if not args.no_false_positives:
        false_positives(detectors, args.sample, args.list_false_positives)


if __name__ == "__main__":
    main()
