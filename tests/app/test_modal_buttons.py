"""A dialog's buttons do what its keys do: #confirm runs its confirm once, #cancel
closes it (both handled once, in the ModalDialog base)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App

from memexplorer.app.screens import confirm_modal
from memexplorer.app.screens.confirm_modal import ConfirmModal
from memexplorer.app.screens.modal_dialog import DIALOG_CSS


class _Counting(ConfirmModal):
    # A subclass's relative CSS_PATH would be read beside this test: name the file.
    CSS_PATH = [DIALOG_CSS, Path(confirm_modal.__file__).with_name("confirm_modal.tcss")]

    def __init__(self) -> None:
        super().__init__("Delete 1 row?", ["details"], "Delete")
        self.confirms = 0

    def confirmed(self) -> None:
        self.confirms += 1
        super().confirmed()


@pytest.mark.parametrize(("button", "answer", "confirms"), [("#confirm", True, 1),
                                                            ("#cancel", None, 0)])  # fmt: skip
async def test_a_dialog_button_answers_once(button: str, answer: bool | None, confirms: int):
    answers: list[bool | None] = []
    dialog = _Counting()
    app = App()
    async with app.run_test(size=(100, 24)) as pilot:
        app.push_screen(dialog, answers.append)
        await pilot.pause()
        await pilot.click(button)
        await pilot.pause()
    assert answers == [answer]
    assert dialog.confirms == confirms
