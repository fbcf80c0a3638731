"""The web_fetch question through the real app: the whole URL, the token called out, Enter refuses."""

from __future__ import annotations

from tests.fakes.scripted_model import ScriptedModel, last_tool_result, text_step, tool_step
from tests.test_dialogs import focused_id, open_dialog, shown
from tests.ui_helpers import idle, make_app, ready_app, submit, wait_for


async def test_the_dialog_shows_the_whole_url_and_a_token_in_it_makes_no_the_default() -> None:
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2
    url = f"https://api.example.com/v1/search?q=zett&token={secret}"
    model = ScriptedModel(tool_step("w1", "web_fetch", {"url": url}), text_step("Understood."))
    app = make_app(model)
    async with ready_app(app, size=(160, 45)) as pilot:
        await submit(pilot, "look it up")
        dialog = await open_dialog(pilot)
        text = shown(app)
        assert url in text and "Fetch a web page from api.example.com?" in text
        assert "carries a credential or token" in text
        # A warning dialog opens on the refusal, with number keys off.
        assert "Don't fetch…" in text and "Always allow api.example.com in this project" in text
        assert focused_id(dialog) == "choice-1"
        await pilot.press("enter")  # Don't fetch → its note field
        await pilot.press("enter")  # sent without a note
        await wait_for(pilot, lambda: idle(app))
        assert "did not let web_fetch contact api.example.com" in last_tool_result(model.requests[-1])
