"""What a sandboxed shell command may touch and which environment it gets (``sandbox.py`` runs it).

- writable: the project, a private ``/tmp`` and the package caches that exist (``tool_caches``);
- hidden: ``secret_places`` (credential stores, zett's own folders) and ``MORE_HIDDEN_HOME_PATHS``;
- the environment: zett-agent's short inherited list, ``BUILD_ENVIRONMENT`` and ``[sandbox] env``,
  never a provider key; outside the sandbox the user's own environment, less those keys.
No Textual here.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from zett_agent.sandbox import NetworkMode, SandboxPolicy
from zett_agent.sandbox.policy import DEFAULT_INHERITED_ENVIRONMENT

from zett_tui.core.contained_read import is_inside
from zett_tui.core.redact import CREDENTIAL_VARIABLES, credential_values
from zett_tui.runtime.files.secret_places import secret_places

log = logging.getLogger(__name__)

__all__ = [
    "BUILD_ENVIRONMENT",
    "MORE_HIDDEN_HOME_PATHS",
    "hidden_paths",
    "outside_environment",
    "sandbox_environment",
    "sandbox_policy",
    "tool_caches",
]

#: Names a build needs beside the sandbox's own short list (PATH, HOME, LANG...). None of them
#: holds a secret by nature; proxy settings are left out because their URLs often hold a password
#: (add them with ``[sandbox] env`` when a command needs them).
BUILD_ENVIRONMENT: tuple[str, ...] = (
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "PYTHONPATH",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "PIP_CACHE_DIR",
    "UV_CACHE_DIR",
    "npm_config_cache",
    "NVM_DIR",
    "NVM_BIN",
    "NODE_PATH",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "GOPATH",
    "GOROOT",
    "GOMODCACHE",
    "GOCACHE",
    "GOFLAGS",
    "JAVA_HOME",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "CC",
    "CXX",
    "CFLAGS",
    "CXXFLAGS",
    "CPPFLAGS",
    "LDFLAGS",
    "PKG_CONFIG_PATH",
    "LD_LIBRARY_PATH",
    "MAKEFLAGS",
    "LANGUAGE",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
)

#: Credential places under the home folder hidden besides ``secret_places`` and zett-agent's own
#: list (which adds ``.config/gh``, ``.npmrc``, ``.pypirc``, the docker socket...).
MORE_HIDDEN_HOME_PATHS: tuple[str, ...] = (
    ".config/git/credentials",
    ".local/share/keyrings",
    ".password-store",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".terraform.d/credentials.tfrc.json",
    ".config/hub",
    ".vault-token",
    ".pgpass",
)


# -- the policy -----------------------------------------------------------------------------------


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def hidden_paths(home: Path | None = None) -> list[Path]:
    """Every credential place a command must not see (real paths, existing or not)."""
    base = home if home is not None else Path.home()
    found = [place.root for place in secret_places()]
    found += [_real(base / relative) for relative in MORE_HIDDEN_HOME_PATHS]
    return list(dict.fromkeys(found))


def tool_caches(environ: Mapping[str, str], home: Path | None = None) -> list[Path]:
    """The package caches builds write to, where they already exist (real paths).

    Only caches: never ``~/.cargo/bin`` or a tool's config, which run code outside the sandbox
    later. A cache that resolves to ``/`` or to the home folder itself is left out.
    """
    base = home if home is not None else Path.home()
    cache_home = Path(environ.get("XDG_CACHE_HOME") or base / ".cache")
    cargo = Path(environ.get("CARGO_HOME") or base / ".cargo")
    go_path = Path((environ.get("GOPATH") or str(base / "go")).split(os.pathsep)[0])
    candidates = [
        Path(environ.get("PIP_CACHE_DIR") or cache_home / "pip"),
        Path(environ.get("UV_CACHE_DIR") or cache_home / "uv"),
        Path(environ.get("npm_config_cache") or base / ".npm"),
        cargo / "registry",
        cargo / "git",
        cargo / ".package-cache",
        cargo / ".package-cache-mutate",
        cargo / ".global-cache",
        Path(environ.get("GOMODCACHE") or go_path / "pkg" / "mod"),
        Path(environ.get("GOCACHE") or cache_home / "go-build"),
    ]
    real_home = _real(base)
    caches: list[Path] = []
    for candidate in candidates:
        if not candidate.is_absolute() or not candidate.exists():
            continue
        real = _real(candidate)
        if real == Path(real.anchor) or real == real_home or is_inside(real_home, real):
            continue
        caches.append(real)
    return list(dict.fromkeys(caches))


def sandbox_policy(
    project: Path,
    *,
    network: bool,
    hidden: Sequence[Path] = (),
    caches: Sequence[Path] = (),
    read_only: bool = False,
) -> SandboxPolicy:
    """The policy for one project: what commands may write, what they cannot see, the network.

    A cache inside a hidden place, or holding one, stays read-only; a hidden place that holds
    the project itself cannot be hidden (the project must stay readable) and is left out.
    ``read_only``: nothing but the private ``/tmp`` is writable (Plan Mode's commands).
    """
    root = _real(project)
    kept_caches = [
        cache
        for cache in caches
        if not any(is_inside(cache, secret) or is_inside(secret, cache) for secret in hidden)
        and not is_inside(root, cache)
    ]
    writable = [] if read_only else [root, *kept_caches]
    kept_hidden = []
    for secret in hidden:
        if any(is_inside(path, secret) for path in (root, *writable)):
            log.warning("the sandbox cannot hide %s: the project is inside it", secret)
            continue
        kept_hidden.append(secret)
    return SandboxPolicy(
        writable_paths=tuple(writable),
        denied_read_paths=tuple(kept_hidden),
        network=NetworkMode.FULL if network else NetworkMode.NONE,
        protect_defaults=True,
        inherit_environment=(),
    )


# -- the environment ------------------------------------------------------------------------------


def _is_provider_key_name(name: str) -> bool:
    upper = name.upper()
    return upper in CREDENTIAL_VARIABLES or upper.endswith("_API_KEY")


def _without_provider_keys(
    env: Mapping[str, str], environ: Mapping[str, str], known_secrets: Sequence[str]
) -> dict[str, str]:
    """``env`` without any provider key: by name, and by value wherever one was copied."""
    secrets = [value for value in (*credential_values(environ), *known_secrets) if len(value) >= 8]
    return {
        name: value
        for name, value in env.items()
        if not _is_provider_key_name(name) and not any(secret in value for secret in secrets)
    }


def sandbox_environment(
    environ: Mapping[str, str], extra_names: Sequence[str] = (), known_secrets: Sequence[str] = ()
) -> dict[str, str]:
    """What a command inside the sandbox starts with: the short list, the build names, the user's."""
    names = dict.fromkeys((*DEFAULT_INHERITED_ENVIRONMENT, *BUILD_ENVIRONMENT, *extra_names))
    chosen = {name: environ[name] for name in names if name in environ}
    return _without_provider_keys(chosen, environ, known_secrets)


def outside_environment(environ: Mapping[str, str], known_secrets: Sequence[str] = ()) -> dict[str, str]:
    """What a command run outside the sandbox starts with: the user's own, minus provider keys."""
    return _without_provider_keys(dict(environ), environ, known_secrets)
