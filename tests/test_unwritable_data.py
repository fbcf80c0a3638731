"""Issue 12, item 1: zett on a data folder it cannot write, and the recovery once it can.

The folders are broken for real: a 64 KiB tmpfs filled to the last byte, the same remounted
read-only, a read-only bind mount under which the data folder is missing and cannot be created,
and a FUSE mount whose server is gone (every access: ENOTCONN). A test skips, saying why, only
where the machine refuses to mount.

What must hold: zett starts and answers; one warning says where it could not write and what is
at risk; ``zett -p`` prints the answer and exits 0; no lock file is left; and once the folder
works again, everything (transcript, history, prompt history, session index) is written without
a restart, redacted and 0600.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.host import Collector, make_host, wait_until
from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.fakes.mounts import dead_mount, fill, read_only_bind, remount, small_tmpfs
from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.ui_helpers import answers, make_app, notices, ready_app, submit, wait_for
from zett_tui.core import paths
from zett_tui.runtime import storage_retry
from zett_tui.runtime.events import Notice
from zett_tui.sessions.index import CACHE_NAME
from zett_tui.workspace import prompt_log

KEY = "sk-test-not-a-real-key-000000000000"
#: A credential-shaped sample: it must reach the disk only redacted.
SECRET = "AKIAQ7W3E9R2T5Y8U1I4"
BROKEN = ("full", "read-only", "missing", "dead-mount")


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(storage_retry, "RETRY_SECONDS", 0.2)


@contextlib.contextmanager
def broken_data_folder(kind: str, root: Path) -> Iterator[Path]:
    """A data folder (the XDG data home) broken in the way ``kind`` says; yields the folder."""
    if kind in ("full", "read-only"):
        with small_tmpfs(root / "mnt") as mount:
            if kind == "full":
                fill(mount)
            else:
                remount(mount, read_only=True)
            yield mount
    elif kind == "missing":
        with read_only_bind(root / "ro") as mount:
            yield mount / "never" / "there"
    else:
        with dead_mount(root / "dead") as mount:
            yield mount


def use_data_home(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(folder))


def warnings_of(sink: Collector) -> list[str]:
    return [notice.text for notice in sink.of(Notice) if notice.level == "warning"]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def transcript_prompts(path: Path) -> list[str]:
    return [json.loads(line)["messages"][0]["data"]["content"] for line in path.read_text().splitlines()]


def history_texts(database: Path) -> list[str]:
    with contextlib.closing(sqlite3.connect(database)) as connection:
        rows = connection.execute("SELECT content FROM raw_messages WHERE role IN (2, 3) ORDER BY sequence")
        return [content for (content,) in rows]


def about_saving(texts: list[str]) -> list[str]:
    """The lines that say something could not be written (any writer's wording)."""
    words = ("cannot write", "cannot be saved", "could not be saved", "disk is full")
    return [text for text in texts if any(word in text.lower() for word in words)]


def files_under(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*") if path.is_file())


# -- zett -p, the real command ---------------------------------------------------------------------


def zett_p(server: FakeLLMServer, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "HOME": str(Path(os.environ["XDG_STATE_HOME"]).parent),
        "OPENAI_API_KEY": KEY,
        "OPENAI_BASE_URL": server.openai_base_url,
    }
    return subprocess.run(
        [sys.executable, "-m", "zett_tui", "--model", "openai:gpt-test", *args],
        input="",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


@pytest.mark.parametrize("kind", BROKEN)
def test_p_answers_warns_once_and_exits_0_on_a_broken_data_folder(
    kind: str, llm_server: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm_server.script(Reply.text("The answer is 42.", chunk=4))
    with broken_data_folder(kind, tmp_path) as folder:
        use_data_home(monkeypatch, folder)
        done = zett_p(llm_server, "-p", "what is the answer?")
        left = {} if kind == "dead-mount" else {p: p.stat().st_size for p in files_under(folder)}
        left.pop(folder / "filler", None)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "The answer is 42.\n"
    lines = done.stderr.splitlines()
    assert "Traceback" not in done.stderr
    [warning] = [line for line in lines if "Cannot write" in line]  # one warning, on stderr
    assert warning.startswith(f"zett: Cannot write to {folder / 'zett'} (")
    assert "in memory" in warning and "lost" in warning
    assert not [path for path in left if path.suffix in (".lock", ".jsonl")]  # no lock, no empty session
    assert not [path for path, size in left.items() if size]  # nothing half-written


def test_p_json_output_on_a_read_only_folder_reports_the_warning_and_a_completed_turn(
    llm_server: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm_server.script(Reply.text("Fine."))
    with broken_data_folder("read-only", tmp_path) as folder:
        use_data_home(monkeypatch, folder)
        done = zett_p(llm_server, "-p", "hi", "--output", "json")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    [notice] = [event for event in events if event["type"] == "notice"]
    assert notice["level"] == "warning" and "Read-only file system" in notice["text"]
    assert events[-1]["type"] == "turn_finished" and events[-1]["status"] == "completed"
    assert done.stderr == f"zett: {notice['text']}\n"  # the warning on stderr too, once


# -- the host: in memory, then everything on disk once it can be ------------------------------------


async def test_a_full_folder_freed_mid_session_gets_every_turn_without_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with small_tmpfs(tmp_path / "mnt", size="4m") as mount:  # room for a database once freed
        use_data_home(monkeypatch, mount)
        filler = fill(mount)
        model = ScriptedModel(text_step("one"), text_step(f"two {SECRET}"))
        host = await make_host(model)
        try:
            first = Collector()
            assert (await host.run_turn(f"first {SECRET}", first)).status == "completed"
            assert (await host.run_turn("second", second := Collector())).status == "completed"
            [warning] = warnings_of(first)
            assert f"Cannot write to {paths.data_dir()} (No space left on device)" in warning
            assert warnings_of(second) == []  # one warning for the whole spell
            assert host.storage is not None and host.storage.failing
            assert "first [REDACTED:aws-access-key]" in " ".join(str(m) for m in model.requests[-1].messages)

            filler.unlink()  # space again: no new turn, no restart
            transcript = host.recorder.session_path(host.session_id)  # type: ignore[union-attr]
            await wait_until(lambda: host.storage is not None and not host.storage.failing, timeout=10)
            assert transcript_prompts(transcript) == ["first [REDACTED:aws-access-key]", "second"]
            assert SECRET not in transcript.read_text()
            assert history_texts(paths.history_db()) == [
                "first [REDACTED:aws-access-key]",
                "one",
                "second",
                "two [REDACTED:aws-access-key]",
            ]
            for path in (transcript, paths.history_db(), paths.sessions_dir() / CACHE_NAME):
                assert mode(path) == 0o600, path
            assert mode(paths.sessions_dir()) == 0o700
            cached = json.loads((paths.sessions_dir() / CACHE_NAME).read_text())["entries"]
            assert transcript.name in cached  # the session index lists it without another listing
            assert host._lock.lock is not None and host._lock.lock.path.exists()  # the lock is taken now
        finally:
            await host.aclose()
        assert not list(paths.sessions_dir().glob("*.lock"))


async def test_a_read_only_folder_remounted_rw_is_written_at_the_next_turn_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(storage_retry, "RETRY_SECONDS", 600.0)  # only the turn's end may retry here
    with small_tmpfs(tmp_path / "mnt", size="4m") as mount:
        use_data_home(monkeypatch, mount)
        remount(mount, read_only=True)
        host = await make_host(ScriptedModel(text_step("one"), text_step("two")))
        try:
            sink = Collector()
            await host.run_turn("first", sink)
            assert len(warnings_of(sink)) == 1
            assert not (mount / "zett").exists()
            remount(mount, read_only=False)
            sink = Collector()
            await host.run_turn("second", sink)
            said = [notice.text for notice in sink.of(Notice)]
            assert said == [storage_retry.saved_again(paths.data_dir())]
            transcript = host.recorder.session_path(host.session_id)  # type: ignore[union-attr]
            assert transcript_prompts(transcript) == ["first", "second"]
            assert history_texts(paths.history_db()) == ["first", "one", "second", "two"]
            assert mode(paths.history_db()) == 0o600 and mode(transcript) == 0o600
        finally:
            await host.aclose()


async def test_a_dead_mount_that_comes_back_gets_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "dead"
    with dead_mount(folder):
        use_data_home(monkeypatch, folder)
        host = await make_host(ScriptedModel(text_step("one")))
        try:
            sink = Collector()
            assert (await host.run_turn("first", sink)).status == "completed"
            [warning] = warnings_of(sink)
            assert "Transport endpoint is not connected" in warning
            subprocess.run(["umount", str(folder)], check=True)  # the plain folder below is writable
            await wait_until(lambda: host.storage is not None and not host.storage.failing, timeout=10)
            transcript = host.recorder.session_path(host.session_id)  # type: ignore[union-attr]
            assert transcript_prompts(transcript) == ["first"]
        finally:
            await host.aclose()


async def test_prompts_that_could_not_be_written_are_written_once_the_folder_works(tmp_path: Path) -> None:
    with small_tmpfs(tmp_path / "state") as mount:
        history = mount / "prompt-history.jsonl"
        remount(mount, read_only=True)
        prompt_log.append_prompt(history, f"one {SECRET}", redact=lambda text: text.replace(SECRET, "[R]"))
        prompt_log.append_prompt(history, "two")
        assert not prompt_log.flush_prompts()
        remount(mount, read_only=False)
        assert prompt_log.flush_prompts()
        assert prompt_log.load_prompts(history) == ["one [R]", "two"]
        assert mode(history) == 0o600


# -- the app ----------------------------------------------------------------------------------------


async def test_the_app_is_ready_answers_and_saves_once_the_folder_is_writable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with small_tmpfs(tmp_path / "mnt", size="4m") as mount:
        use_data_home(monkeypatch, mount / "data")
        monkeypatch.setenv("XDG_STATE_HOME", str(mount / "state"))
        remount(mount, read_only=True)
        app = make_app(ScriptedModel(text_step("first answer"), text_step("second answer")))
        async with ready_app(app) as pilot:
            warnings = [text for text in notices(app) if "Cannot write" in text]
            assert len(warnings) == 1 and "Read-only file system" in warnings[0]
            assert "Could not start the model" not in " ".join(notices(app))
            await submit(pilot, f"hello {SECRET}")
            await wait_for(pilot, lambda: [a.plain_text() for a in answers(app)] == ["first answer"])
            remount(mount, read_only=False)
            host = app.chat.host
            assert host is not None
            await wait_for(pilot, lambda: host.storage is not None and not host.storage.failing)
            saved = storage_retry.saved_again(paths.data_dir())
            await wait_for(pilot, lambda: saved in notices(app))  # told at once, not with the next turn
            await submit(pilot, "again")
            await wait_for(pilot, lambda: len(answers(app)) == 2)
            transcript = host.recorder.session_path(host.session_id)  # type: ignore[union-attr]
            await wait_for(
                pilot, lambda: transcript.exists() and len(transcript.read_text().splitlines()) == 2
            )
            said = notices(app)
            assert len(about_saving(said)) == 1 and said.count(saved) == 1, said
        assert transcript_prompts(transcript) == ["hello [REDACTED:aws-access-key]", "again"]
        assert mode(transcript) == 0o600
        assert history_texts(paths.history_db())[:2] == ["hello [REDACTED:aws-access-key]", "first answer"]
        prompts = prompt_log.load_prompts(paths.prompt_history_file())
        assert prompts == ["hello [REDACTED:aws-access-key]", "again"]
        assert mode(paths.prompt_history_file()) == 0o600
        assert not list(paths.sessions_dir().glob("*.lock"))


@pytest.mark.parametrize("kind", BROKEN)
async def test_the_app_starts_ready_and_answers_on_a_broken_data_folder(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: "Could not start the model", "not ready" for good, and every prompt swallowed."""
    with broken_data_folder(kind, tmp_path) as folder:
        use_data_home(monkeypatch, folder)
        app = make_app(ScriptedModel(text_step("one"), text_step("two")))
        async with ready_app(app) as pilot:
            await submit(pilot, "first")
            await wait_for(pilot, lambda: [a.plain_text() for a in answers(app)] == ["one"])
            await submit(pilot, "second")
            await wait_for(pilot, lambda: len(answers(app)) == 2)
            said = notices(app)
            assert len(about_saving(said)) == 1, said
            assert app.chat.status.activity != "not ready"


async def test_a_session_another_zett_took_meanwhile_is_not_written_from_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.test_sessions_lock import start_holder

    # the retry comes after the other zett holds the lock: a timer's could take it first (a loaded
    # machine starts the holder's Python in more than the quick 0.2 s)
    monkeypatch.setattr(storage_retry, "RETRY_SECONDS", 600.0)
    with small_tmpfs(tmp_path / "mnt", size="4m") as mount:
        use_data_home(monkeypatch, mount)
        remount(mount, read_only=True)
        host = await make_host(ScriptedModel(text_step("one")))
        holder = None
        try:
            await host.run_turn("first", Collector())
            remount(mount, read_only=False)
            holder = start_holder(paths.sessions_dir(), host.session_id)
            assert host.storage is not None and not await host.storage.retry_now()
            await wait_until(lambda: any("opened in" in n.text for n in host.notices.waiting))
            [busy] = [notice.text for notice in host.take_notices()]
            assert f"zett process {holder.pid}" in busy and "stay in memory" in busy
            assert host.storage is not None and host.storage.failing
        finally:
            await host.aclose()
            if holder is not None:
                holder.kill()
                holder.wait(timeout=10)
                for stream in (holder.stdin, holder.stdout):
                    if stream is not None:
                        stream.close()
        assert not host.recorder.session_path(host.session_id).exists()  # type: ignore[union-attr]
