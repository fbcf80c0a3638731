"""Settings: how the layers combine, and how every kind of bad input is reported and skipped."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from zett_tui.config.settings import (
    ConfigProblem,
    ConfigSaveError,
    EndpointConfig,
    Settings,
    UISettings,
    describe_config_locations,
    find_project_config,
    load_settings,
    save_user_setting,
)
from zett_tui.core import paths


@pytest.fixture(autouse=True)
def private_config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Keep the real ~/.config out of every test."""
    config_home = tmp_path / "xdg-config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_home))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return config_home


class Workspace:
    """A home, a user config and a project folder, all under tmp_path."""

    def __init__(self, root: Path):
        self.home = root / "home"
        self.project = self.home / "project"
        self.project.mkdir(parents=True)
        self.user_config = root / "user" / "config.toml"
        self.project_config = self.project / ".zett" / "config.toml"

    def write_user(self, text: str) -> Path:
        return _write(self.user_config, text)

    def write_project(self, text: str) -> Path:
        return _write(self.project_config, text)

    def load(
        self,
        env: dict[str, str] | None = None,
        flags: dict[str, object] | None = None,
        cwd: Path | None = None,
    ) -> tuple[Settings, list[ConfigProblem]]:
        return load_settings(
            cwd=cwd or self.project,
            env={"HOME": str(self.home), **(env or {})},
            flags=flags,
            user_config=self.user_config,
            project_trusted=True,
        )

    def load_clean(self, **kwargs: object) -> Settings:
        settings, problems = self.load(**kwargs)  # type: ignore[arg-type]
        assert problems == []
        return settings


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path)


def only_problem(problems: list[ConfigProblem]) -> str:
    assert len(problems) == 1, [str(problem) for problem in problems]
    return str(problems[0])


# --- layering -------------------------------------------------------------------------------------


def test_nothing_configured_gives_the_defaults(ws: Workspace) -> None:
    settings = ws.load_clean()
    assert settings == Settings()
    assert settings.model is None
    assert settings.ui == UISettings(theme=None, bell=True, animations=True)
    assert settings.sources == ()


def test_each_layer_overrides_the_one_below(ws: Workspace) -> None:
    ws.write_user(
        """
        model = "openai:from-user"
        reasoning_effort = "low"
        [ui]
        theme = "user-theme"
        animations = false
        terminal_scroll = false
        """
    )
    ws.write_project(
        """
        model = "openai:from-project"
        ui.theme = "project-theme"
        """
    )
    env = {"ZETT_MODEL": "openai:from-env", "ZETT_REASONING_EFFORT": "HIGH"}

    assert ws.load_clean().model == "openai:from-project"
    with_env = ws.load_clean(env=env)
    assert (with_env.model, with_env.reasoning_effort) == ("openai:from-env", "high")
    with_flags = ws.load_clean(env=env, flags={"model": "demo", "reasoning_effort": None})
    assert with_flags.model == "demo"
    assert with_flags.reasoning_effort == "high"  # None means the flag was not given
    assert with_flags.ui == UISettings(
        theme="project-theme", bell=True, animations=False, terminal_scroll=False
    )
    assert with_flags.sources == (ws.user_config, ws.project_config)


def test_theme_auto_in_a_higher_layer_goes_back_to_following_the_terminal(ws: Workspace) -> None:
    ws.write_user('ui.theme = "dracula"\n')
    assert ws.load_clean().ui.theme == "dracula"
    assert ws.load_clean(env={"ZETT_THEME": "auto"}).ui.theme is None
    assert ws.load_clean(flags={"ui.theme": "nord"}).ui.theme == "nord"


def test_endpoint_table(ws: Workspace) -> None:
    ws.write_user(
        """
        model = "local:qwen2.5-coder:7b"

        [endpoints.local]
        base_url = "http://127.0.0.1:8080/v1"
        api_key_env = "LOCAL_KEY"
        reasoning_effort = "off"
        send_prompt_cache_key = true
        vision = false

        [endpoints.cloud]
        base_url = "https://llm.example.com/v1"
        api_key = "not-a-real-key"
        """
    )
    settings = ws.load_clean()
    assert settings.model == "local:qwen2.5-coder:7b"
    assert dict(settings.endpoints) == {
        "local": EndpointConfig(
            base_url="http://127.0.0.1:8080/v1",
            api_key_env="LOCAL_KEY",
            reasoning_effort="off",
            send_prompt_cache_key=True,
            vision=False,
        ),
        "cloud": EndpointConfig(base_url="https://llm.example.com/v1", api_key="not-a-real-key"),
    }
    assert "not-a-real-key" not in repr(settings)


def test_project_can_tune_but_not_redirect_the_users_endpoint_or_name_a_key(ws: Workspace) -> None:
    ws.write_user('[endpoints.work]\nbase_url = "https://llm.work.example/v1"\napi_key_env = "WORK_KEY"\n')
    project = ws.write_project(
        """
        [endpoints.work]
        reasoning_effort = "off"
        base_url = "https://attacker.example/v1"

        [endpoints.local]
        base_url = "http://127.0.0.1:11434/v1"
        api_key_env = "OPENAI_API_KEY"
        """
    )
    settings, problems = ws.load()
    assert settings.endpoints["work"] == EndpointConfig(
        base_url="https://llm.work.example/v1", api_key_env="WORK_KEY", reasoning_effort="off"
    )
    assert settings.endpoints["local"] == EndpointConfig(base_url="http://127.0.0.1:11434/v1")
    assert [(p.path, p.line, p.key) for p in problems] == [
        (project, 3, "endpoints.work.base_url"),
        (project, 7, "endpoints.local.api_key_env"),
    ]
    assert "cannot move an endpoint" in problems[0].message
    assert "not allowed in a project file" in problems[1].message


def test_redact_patterns_of_user_and_project_add_up(ws: Workspace) -> None:
    ws.write_user('redact_patterns = ["corp-[0-9]{6}", "tok_[a-z]+"]\n')
    ws.write_project('redact_patterns = ["tok_[a-z]+", "proj-secret-\\\\w+"]\n')
    assert ws.load_clean().redact_patterns == ("corp-[0-9]{6}", "tok_[a-z]+", r"proj-secret-\w+")


# --- finding the project override -----------------------------------------------------------------


def test_project_file_is_found_from_a_subfolder(ws: Workspace) -> None:
    ws.write_project('model = "demo"\n')
    deep = ws.project / "src" / "pkg"
    deep.mkdir(parents=True)
    assert ws.load_clean(cwd=deep).model == "demo"


def test_nearest_zett_folder_wins_even_without_a_config_file(ws: Workspace) -> None:
    ws.write_project('model = "demo"\n')
    inner = ws.project / "vendored"
    (inner / ".zett").mkdir(parents=True)
    assert find_project_config(inner, home=ws.home) == inner / ".zett" / "config.toml"
    assert ws.load_clean(cwd=inner).model is None


def test_search_stops_at_the_home_directory(ws: Workspace, tmp_path: Path) -> None:
    _write(ws.home / ".zett" / "config.toml", 'model = "demo"\n')
    _write(tmp_path / ".zett" / "config.toml", 'model = "demo"\n')
    assert find_project_config(ws.project, home=ws.home) is None
    assert ws.load_clean().model is None


# --- whole files that cannot be used --------------------------------------------------------------


def test_toml_syntax_error_skips_the_whole_file_and_names_the_line(ws: Workspace) -> None:
    user = ws.write_user('model = "openai:gpt-4o"\n\n[ui\ntheme = "x"\n')
    ws.write_project('reasoning_effort = "low"\n')
    settings, problems = ws.load()
    assert only_problem(problems) == (
        f"{user}:3: not valid TOML: Expected ']' at the end of a table declaration (column 4); "
        "the whole file was ignored"
    )
    assert settings.model is None
    assert settings.reasoning_effort == "low"
    assert settings.sources == (ws.project_config,)


def test_toml_error_at_the_end_of_the_file_points_at_the_last_line(ws: Workspace) -> None:
    user = ws.write_user('model = "a:b"\nui.theme =\n')
    problem = only_problem(ws.load()[1])
    assert problem.startswith(f"{user}:2: not valid TOML: ")


def test_file_that_is_not_utf8(ws: Workspace) -> None:
    ws.user_config.parent.mkdir(parents=True)
    ws.user_config.write_bytes(b'model = "demo"\n# caf\xe9\n')
    assert only_problem(ws.load()[1]) == (
        f"{ws.user_config}:2: not UTF-8 text (byte 0xe9 at column 6); save it as UTF-8;"
        " the whole file was ignored"
    )


def test_utf8_byte_order_mark_is_accepted(ws: Workspace) -> None:
    ws.user_config.parent.mkdir(parents=True)
    ws.user_config.write_bytes(b'\xef\xbb\xbfmodel = "demo"\n')
    assert ws.load_clean().model == "demo"


def test_config_path_that_is_a_folder(ws: Workspace) -> None:
    ws.user_config.mkdir(parents=True)
    assert (
        only_problem(ws.load()[1]) == f"{ws.user_config}: is a folder, not a file; the whole file was ignored"
    )


def test_unreadable_file(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    ws.write_user('model = "demo"\n')
    real_read_bytes = Path.read_bytes

    def read_bytes(path: Path) -> bytes:
        if path == ws.user_config:
            raise PermissionError(13, "Permission denied")
        return real_read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    settings, problems = ws.load()
    assert only_problem(problems) == (
        f"{ws.user_config}: cannot be read: permission denied; the whole file was ignored"
    )
    assert settings.model is None


# --- single keys that cannot be used --------------------------------------------------------------


def test_unknown_key_is_skipped_with_a_suggestion_and_the_rest_applies(ws: Workspace) -> None:
    user = ws.write_user(
        """
        # my settings
        modle = "openai:gpt-4o"
        reasoning_effort = "low"
        [ui]
        bel = false
        """
    )
    settings, problems = ws.load()
    assert [str(p) for p in problems] == [
        f"{user}:2: modle: unknown key; did you mean 'model'?",
        f"{user}:5: ui.bel: unknown key; did you mean 'bell'?",
    ]
    assert settings.reasoning_effort == "low"
    assert settings.ui.bell is True


@pytest.mark.parametrize(
    ("text", "line", "key", "message"),
    [
        ('theme = "nord"\n', 1, "theme", "unknown key; did you mean 'ui.theme'?"),
        (
            "[ui]\ncolour = 1\n",
            2,
            "ui.colour",
            "unknown key (known here: theme, bell, notify, animations, image_previews, terminal_scroll)",
        ),
        (
            '[ui]\ntheme = "nord"\nmodel = "demo"\n',
            3,
            "ui.model",
            "a top-level setting: move it above the first [table] header (keys below a header belong to it)",
        ),
        (
            "[telemetry]\nenabled = true\n",
            1,
            "telemetry",
            "unknown key (known here: model, models, reasoning_effort, redact_patterns, ui, sandbox, checkpoints, "
            "web, subagents, endpoints, extensions, mcp_servers, hooks)",
        ),
    ],
)
def test_unknown_key_messages(ws: Workspace, text: str, line: int, key: str, message: str) -> None:
    user = ws.write_user(text)
    assert only_problem(ws.load()[1]) == f"{user}:{line}: {key}: {message}"


def test_wrong_type_is_skipped_and_the_lower_layer_stays(ws: Workspace) -> None:
    ws.write_user('[ui]\ntheme = "dracula"\n')
    project = ws.write_project(
        """
        [endpoints.local]
        base_url = 42

        [ui]
        # a comment
        theme = 3
        """
    )
    settings, problems = ws.load()
    assert [str(p) for p in problems] == [
        f"{project}:2: endpoints.local.base_url: expected a string, got an integer (42)",
        f"{project}:6: ui.theme: expected a string, got an integer (3)",
    ]
    assert settings.ui.theme == "dracula"
    assert settings.endpoints == {}


@pytest.mark.parametrize(
    ("text", "line", "key", "message"),
    [
        (
            'model = "demo"\nreasoning_effort = "hihg"\n',
            2,
            "reasoning_effort",
            "unknown reasoning effort 'hihg'; expected one of off, minimal, low, medium, high, xhigh, max,"
            " ultra; did you mean 'high'?",
        ),
        (
            '[endpoints.local]\nreasoning_effort = "off"\n',
            1,
            "endpoints.local",
            'missing base_url (e.g. base_url = "http://127.0.0.1:8080/v1"); endpoint ignored',
        ),
        (
            '[endpoints.local]\nbase_url = "ftp://127.0.0.1/v1"\n',
            2,
            "endpoints.local.base_url",
            "expected an http:// or https:// URL such as 'http://127.0.0.1:8080/v1', got 'ftp://127.0.0.1/v1'",
        ),
        (
            'redact_patterns = [\n  "ok-[0-9]+",  # fine\n  "broken(",\n]\n',
            3,
            "redact_patterns",
            "item 2: regex 'broken(' does not compile: missing ), unterminated subpattern at position 6;"
            " that item was ignored",
        ),
        (
            'model = "ollama:"\n',
            1,
            "model",
            "the model part of 'ollama:' is empty; use PROVIDER:MODEL, ENDPOINT:MODEL or demo",
        ),
        ('model = ":gpt-4o"\n', 1, "model", "the provider part of ':gpt-4o' is empty"),
        (
            '[endpoints."my server"]\nbase_url = "http://h"\n',
            1,
            'endpoints."my server"',
            "ignored: an endpoint name may use",
        ),
        (
            '[endpoints.OpenAI]\nbase_url = "http://h"\n',
            1,
            "endpoints.OpenAI",
            "ignored: 'OpenAI' is built in, so 'OpenAI:MODEL' would never reach it; rename it",
        ),
    ],
)
def test_invalid_values_are_reported_and_skipped(
    ws: Workspace, text: str, line: int, key: str, message: str
) -> None:
    user = ws.write_user(text)
    settings, problems = ws.load()
    assert only_problem(problems).startswith(f"{user}:{line}: {key}: {message}")
    assert settings.endpoints == {}
    assert settings.reasoning_effort is None


def test_only_the_bad_redact_pattern_is_dropped(ws: Workspace) -> None:
    ws.write_user('redact_patterns = ["ok-[0-9]+", "broken(", "x*"]\n')
    settings, problems = ws.load()
    assert settings.redact_patterns == ("ok-[0-9]+",)
    assert [p.message.split(":")[0] for p in problems] == ["item 2", "item 3"]
    assert "matches the empty string" in problems[1].message


def test_lines_are_found_for_dotted_keys_inline_tables_and_after_multiline_strings(ws: Workspace) -> None:
    user = ws.write_user(
        '''
        notes = """
        model = 5
        [ui]
        """
        ui.animations = "no"
        endpoints.lab = { base_url = "http://10.0.0.2:8000/v1", reasoning_effort = 7 }
        [endpoints.'quoted']
        base_url = 'http://h'
        send_prompt_cache_key = "yes"
        '''
    )
    assert [str(p) for p in ws.load()[1]] == [
        f"{user}:1: notes: unknown key "
        "(known here: model, models, reasoning_effort, redact_patterns, ui, sandbox, checkpoints, web, subagents, "
        "endpoints, extensions, mcp_servers, hooks)",
        f"{user}:5: ui.animations: expected true or false, got a string ('no')",
        f"{user}:6: endpoints.lab.reasoning_effort: expected a string, got an integer (7)",
        f"{user}:9: endpoints.quoted.send_prompt_cache_key: expected true or false, got a string ('yes')",
    ]


def test_a_key_given_with_the_wrong_type_is_never_echoed(ws: Workspace) -> None:
    user = ws.write_user(
        '[endpoints.x]\nbase_url = "http://h"\napi_key = 123456789\napi_key_env = "sk-live-abc"\n'
    )
    problems = ws.load()[1]
    assert [(p.path, p.line, p.key) for p in problems] == [
        (user, 3, "endpoints.x.api_key"),
        (user, 4, "endpoints.x.api_key_env"),
    ]
    text = "\n".join(str(p) for p in problems)
    assert "123456789" not in text
    assert "sk-live-abc" not in text


# --- environment and flags ------------------------------------------------------------------------


def test_invalid_environment_values_name_the_variable(ws: Workspace) -> None:
    settings, problems = ws.load(
        env={"ZETT_REASONING_EFFORT": "turbo", "ZETT_MODEL": ":gpt-4o", "ZETT_NO_BELL": "?"}
    )
    assert problems[0] == ConfigProblem(
        None,
        None,
        "ZETT_MODEL",
        "the provider part of ':gpt-4o' is empty; use PROVIDER:MODEL, ENDPOINT:MODEL or demo",
    )
    assert str(problems[1]).startswith("ZETT_REASONING_EFFORT: unknown reasoning effort 'turbo'")
    assert str(problems[2]) == "ZETT_NO_BELL: expected 1 or 0, got '?'"
    assert (settings.model, settings.reasoning_effort, settings.ui.bell) == (None, None, True)


def test_model_names_are_left_for_the_provider_code_to_judge(ws: Workspace) -> None:
    """``openai`` alone means its default model; a bare ``gpt-4o`` gets its hint from ``models``."""
    assert ws.load_clean(env={"ZETT_MODEL": "openai"}).model == "openai"
    assert ws.load_clean(env={"ZETT_MODEL": " ollama : qwen3:8b "}).model == "ollama:qwen3:8b"
    assert ws.load_clean(env={"ZETT_REASONING_EFFORT": "None"}).reasoning_effort == "off"


def test_empty_environment_values_count_as_unset(ws: Workspace) -> None:
    ws.write_user('model = "demo"\n')
    settings = ws.load_clean(env={"ZETT_MODEL": "", "ZETT_THEME": " ", "NO_COLOR": "", "ZETT_NO_BELL": "0"})
    assert (settings.model, settings.no_color, settings.ui.bell) == ("demo", False, True)


def test_no_color_and_no_bell(ws: Workspace) -> None:
    settings = ws.load_clean(env={"NO_COLOR": "1", "ZETT_NO_BELL": "1"})
    assert settings.no_color is True
    assert settings.ui.bell is False
    assert settings.ui.animations is True


def test_ui_flags_may_leave_out_their_table(ws: Workspace) -> None:
    settings = ws.load_clean(flags={"theme": "nord", "ui.animations": False, "bell": None})
    assert settings.ui == UISettings(theme="nord", bell=True, animations=False)


def test_bad_flags_are_problems_not_crashes(ws: Workspace) -> None:
    settings, problems = ws.load(flags={"model": "openai:", "colour": "red", "reasoning_effort": "max"})
    assert [(p.key, p.path, p.line) for p in problems] == [("model", None, None), ("colour", None, None)]
    assert problems[0].message.endswith("(command-line flag)")
    assert settings.reasoning_effort == "max"


def test_problem_text_formats() -> None:
    assert str(ConfigProblem(Path("/c.toml"), 3, "ui.theme", "bad")) == "/c.toml:3: ui.theme: bad"
    assert str(ConfigProblem(Path("/c.toml"), None, None, "bad")) == "/c.toml: bad"
    assert str(ConfigProblem(None, None, "ZETT_MODEL", "bad")) == "ZETT_MODEL: bad"


# --- saving one setting ---------------------------------------------------------------------------


def test_save_into_an_existing_file_keeps_comments_and_other_settings(ws: Workspace) -> None:
    ws.write_user(
        """
        # zett settings, hand written
        model = "openai:gpt-4o"  # the work model

        # looks
        [ui]
        bell = false  # tmux rings anyway
        theme = "nord"  # was dracula

        [endpoints.local]
        base_url = "http://127.0.0.1:8080/v1"
        """
    )
    save_user_setting(ws.user_config, "ui.theme", "gruvbox")
    save_user_setting(ws.user_config, "ui.animations", False)
    save_user_setting(ws.user_config, "reasoning_effort", "high")

    text = ws.user_config.read_text()
    for kept in ("# zett settings, hand written", "# the work model", "# looks", "# tmux rings anyway"):
        assert kept in text
    assert 'theme = "gruvbox"  # was dracula' in text
    settings = ws.load_clean()
    assert settings.ui == UISettings(theme="gruvbox", bell=False, animations=False)
    assert settings.reasoning_effort == "high"
    assert settings.model == "openai:gpt-4o"
    assert settings.endpoints["local"].base_url == "http://127.0.0.1:8080/v1"
    assert text.index("animations = false") < text.index("[endpoints.local]")


def test_save_creates_a_private_file_and_its_folder(ws: Workspace, private_config_home: Path) -> None:
    target = paths.config_file()
    assert target.is_relative_to(private_config_home)
    save_user_setting(target, "ui.theme", 'odd "name"\\')
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert stat.S_IMODE(target.parent.stat().st_mode) == 0o700
    assert tomllib.loads(target.read_text()) == {"ui": {"theme": 'odd "name"\\'}}


def test_save_tightens_an_existing_loose_file(ws: Workspace) -> None:
    ws.write_user('model = "demo"\n')
    os.chmod(ws.user_config, 0o644)
    save_user_setting(ws.user_config, "model", "openai:gpt-4o")
    assert stat.S_IMODE(ws.user_config.stat().st_mode) == 0o600
    assert ws.user_config.read_text() == 'model = "openai:gpt-4o"\n'


def test_save_through_a_symlink_keeps_the_link(ws: Workspace, tmp_path: Path) -> None:
    real = _write(tmp_path / "dotfiles" / "zett.toml", 'model = "demo"\n')
    ws.user_config.parent.mkdir(parents=True)
    ws.user_config.symlink_to(real)
    save_user_setting(ws.user_config, "ui.bell", False)
    assert ws.user_config.is_symlink()
    assert real.read_text() == 'model = "demo"\n\n[ui]\nbell = false\n'


@pytest.mark.parametrize(
    ("before", "key", "value", "after"),
    [
        ("ui = { bell = false }\n", "ui.theme", "nord", 'ui = { bell = false, theme = "nord" }\n'),
        ("ui.bell = false\n", "ui.theme", "nord", 'ui.bell = false\nui.theme = "nord"\n'),
        ("# hi\n\n[ui]\nbell = false\n", "model", "demo", '# hi\n\nmodel = "demo"\n\n[ui]\nbell = false\n'),
        ('model = "demo"', "ui.bell", False, 'model = "demo"\n\n[ui]\nbell = false\n'),
        (
            '[endpoints.local]\nbase_url = "http://h"\n',
            "endpoints.local.reasoning_effort",
            "off",
            '[endpoints.local]\nbase_url = "http://h"\nreasoning_effort = "off"\n',
        ),
    ],
)
def test_save_finds_the_right_place(ws: Workspace, before: str, key: str, value: object, after: str) -> None:
    ws.user_config.parent.mkdir(parents=True)
    ws.user_config.write_text(before)
    save_user_setting(ws.user_config, key, value)  # type: ignore[arg-type]
    assert ws.user_config.read_text() == after


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("ui.colour", "red", "ui.colour is not a setting that can be saved"),
        ("redact_patterns", "x", "redact_patterns is not a setting that can be saved"),
        ("reasoning_effort", "turbo", "reasoning_effort: unknown reasoning effort 'turbo'"),
        ("ui.bell", "yes", "ui.bell: expected true or false, got a string ('yes')"),
    ],
)
def test_save_refuses_unknown_keys_and_bad_values(
    ws: Workspace, key: str, value: object, message: str
) -> None:
    ws.write_user('model = "demo"\n')
    with pytest.raises(ConfigSaveError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        save_user_setting(ws.user_config, key, value)  # type: ignore[arg-type]
    assert ws.user_config.read_text() == 'model = "demo"\n'


def test_save_never_rewrites_a_broken_file(ws: Workspace) -> None:
    ws.write_user("model = \n")
    with pytest.raises(ConfigSaveError, match="not valid TOML"):
        save_user_setting(ws.user_config, "ui.theme", "nord")
    assert ws.user_config.read_text() == "model = \n"


# --- help text and layering -----------------------------------------------------------------------


def test_describe_config_locations_names_both_files(ws: Workspace) -> None:
    text = describe_config_locations(ws.project)
    assert str(paths.config_file()) in text
    assert str(ws.project / ".zett" / "config.toml") in text
    ws.write_project('model = "demo"\n')
    assert f"Project override: {ws.project_config}\n" in describe_config_locations(ws.project / "sub")


def test_config_imports_no_textual() -> None:
    code = "import sys, zett_tui.config.settings; sys.exit('textual' in sys.modules or 'rich' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_checkpoint_size_bound_is_the_users_to_set_not_the_projects(ws: Workspace) -> None:
    assert ws.load_clean().checkpoints.max_file_bytes == 10 * 1024 * 1024
    ws.write_user("[checkpoints]\nmax_file_mb = 2.5\n")
    assert ws.load_clean().checkpoints.max_file_bytes == int(2.5 * 1024 * 1024)
    project = ws.write_project("[checkpoints]\nmax_file_mb = 0.001\n")
    settings, problems = ws.load()
    assert settings.checkpoints.max_file_bytes == int(2.5 * 1024 * 1024)
    assert len(problems) == 1 and str(problems[0]).startswith(f"{project}:2: checkpoints.max_file_mb")


def test_notify_is_auto_or_off_from_a_file_or_the_environment(ws: Workspace) -> None:
    assert ws.load_clean().ui.notify == "auto"
    ws.write_user('[ui]\nnotify = "OFF"\n')
    assert ws.load_clean().ui.notify == "off"
    assert ws.load_clean(env={"ZETT_NOTIFY": "auto"}).ui.notify == "auto"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('"sometimes"', 'expected "auto" or "off", got \'sometimes\''),
        ("false", 'expected "auto" or "off", got a boolean (false)'),
    ],
)
def test_a_bad_notify_value_is_one_line_and_keeps_the_default(
    ws: Workspace, value: str, message: str
) -> None:
    user = ws.write_user(f"[ui]\nnotify = {value}\n")
    settings, problems = ws.load()
    assert [str(p) for p in problems] == [f"{user}:2: ui.notify: {message}"]
    assert settings.ui.notify == "auto"


def test_a_bad_zett_notify_is_named_in_its_message(ws: Workspace) -> None:
    settings, problems = ws.load(env={"ZETT_NOTIFY": "loud"})
    assert [str(p) for p in problems] == ['ZETT_NOTIFY: expected "auto" or "off", got \'loud\'']
    assert settings.ui.notify == "auto"
