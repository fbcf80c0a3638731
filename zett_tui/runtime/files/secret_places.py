"""Where secrets live on this machine: credential stores, zett's own folders, process environments.

One list, so that every check that must treat them specially (the read gate, and anything else
that hides or asks about them) names the same places. Each place is given by its real path
(``os.path.realpath``: a ``~/.ssh`` that is a link to ``/vault/ssh`` is ``/vault/ssh``), computed
when asked, so a changed ``HOME`` or ``XDG_*`` counts at once.

A process's environment is reached as ``/proc/<pid>/environ`` (also ``/proc/self/environ``,
``/proc/<pid>/task/<tid>/environ``, ``/dev/fd/..`` tricks: all of them resolve to one of the
first two shapes), so it is recognised by the shape of the real path.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from zett_tui.core import paths

__all__ = ["CREDENTIAL_STORES", "SecretPlace", "secret_place_of", "secret_places"]

#: Paths under the home folder that hold credentials, and what they hold.
CREDENTIAL_STORES: tuple[tuple[str, str], ...] = (
    (".ssh", "SSH keys"),
    (".aws", "AWS credentials"),
    (".gnupg", "GnuPG keys"),
    (".config/gcloud", "Google Cloud credentials"),
    (".azure", "Azure credentials"),
    (".kube", "Kubernetes credentials"),
    (".docker/config.json", "Docker registry credentials"),
    (".netrc", "stored passwords (.netrc)"),
    (".git-credentials", "git credentials"),
    (".config/git/credentials", "git credentials"),
    (".config/gh", "GitHub CLI tokens"),
    (".config/github-copilot", "GitHub Copilot tokens"),
    (".config/hub", "GitHub tokens (hub)"),
    (".claude/.credentials.json", "Claude Code's login"),
    (".claude.json", "Claude Code's settings and tokens"),
    (".codex/auth.json", "Codex CLI's login"),
    (".gemini/oauth_creds.json", "Gemini CLI's login"),
    (".config/gh-copilot", "GitHub Copilot CLI tokens"),
    (".npmrc", "npm tokens"),
    (".yarnrc.yml", "Yarn registry tokens"),
    (".pypirc", "PyPI tokens"),
    (".gem/credentials", "RubyGems API key"),
    (".cargo/credentials", "crates.io token"),
    (".cargo/credentials.toml", "crates.io token"),
    (".composer/auth.json", "Composer tokens"),
    (".config/composer/auth.json", "Composer tokens"),
    (".nuget/NuGet/NuGet.Config", "NuGet feed passwords"),
    (".m2/settings.xml", "Maven repository passwords"),
    (".m2/settings-security.xml", "Maven master password"),
    (".gradle/gradle.properties", "Gradle credentials"),
    (".ivy2/.credentials", "Ivy/sbt credentials"),
    (".sbt/.credentials", "sbt credentials"),
    (".my.cnf", "MySQL passwords"),
    (".pgpass", "PostgreSQL passwords"),
    (".s3cfg", "S3 keys (s3cmd)"),
    (".config/rclone", "rclone remotes' keys"),
    (".boto", "Google Cloud Storage keys (boto)"),
    (".oci", "Oracle Cloud keys"),
    (".config/doctl", "DigitalOcean tokens"),
    (".config/hcloud", "Hetzner Cloud tokens"),
    (".fly", "Fly.io tokens"),
    (".config/op", "1Password CLI sessions"),
    (".terraform.d/credentials.tfrc.json", "Terraform Cloud tokens"),
    (".vault-token", "Vault token"),
    (".databrickscfg", "Databricks tokens"),
    (".kaggle/kaggle.json", "Kaggle API key"),
    (".cache/huggingface/token", "Hugging Face token"),
    (".huggingface/token", "Hugging Face token"),
    (".config/containers/auth.json", "container registry passwords"),
    (".config/configstore", "tokens of npm-based CLIs (Firebase...)"),
    (".wrangler", "Cloudflare tokens (wrangler)"),
    (".config/.wrangler", "Cloudflare tokens (wrangler)"),
    (".netlify", "Netlify tokens"),
    (".ngrok2", "ngrok token"),
    (".config/ngrok", "ngrok token"),
    (".local/share/keyrings", "the desktop keyring"),
    (".password-store", "pass passwords"),
    (".bash_history", "shell history (typed tokens)"),
    (".zsh_history", "shell history (typed tokens)"),
    (".histfile", "shell history (typed tokens)"),
    (".local/share/fish/fish_history", "shell history (typed tokens)"),
    (".python_history", "Python history"),
    (".node_repl_history", "Node history"),
    (".psql_history", "psql history"),
    (".mysql_history", "MySQL history"),
    (".sqlite_history", "SQLite history"),
    (".rediscli_history", "Redis CLI history"),
)
ENVIRON_WHAT = "a process's environment (API keys, tokens)"


@dataclass(frozen=True, slots=True)
class SecretPlace:
    """A folder or file that holds secrets: its real path and what it holds, in words."""

    root: Path
    what: str


def secret_places() -> list[SecretPlace]:
    """The credential stores under the home folder and zett's own folders (not environments)."""
    places = [SecretPlace(_real(Path.home() / relative), what) for relative, what in CREDENTIAL_STORES]
    places += [
        SecretPlace(_real(paths.config_dir()), "zett's settings (API keys)"),
        SecretPlace(_real(paths.data_dir()), "zett's sessions and history"),
        SecretPlace(_real(paths.state_dir()), "zett's logs and prompt history"),
    ]
    return places


def secret_place_of(real: Path, places: Sequence[SecretPlace] | None = None) -> SecretPlace | None:
    """The secret place the real path ``real`` lies in (or is), or None.

    ``places`` is ``secret_places()`` computed once by a caller that asks about many paths.
    """
    if _is_environ(real):
        return SecretPlace(real, ENVIRON_WHAT)
    text = str(real)
    for place in secret_places() if places is None else places:
        root = str(place.root)
        if text == root or text.startswith(root.rstrip("/") + "/"):
            return place
    return None


def _is_environ(real: Path) -> bool:
    parts = real.parts
    if len(parts) < 4 or parts[:2] != ("/", "proc") or parts[-1] != "environ":
        return False
    return len(parts) == 4 or (len(parts) == 6 and parts[3] == "task")


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))
