from tests.fakes.scripted_model import ScriptedModel
from tests.ui_helpers import make_app, ready_app


async def test_probe():
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        await pilot.press(*"abc")
        await pilot.pause(0.1)
        c = app.chat.composer
        print(c.backspace_erases_one(), app._prompt_look.spot(c, erases_one=True), app._predicted_echo._spot)
