"""The app on a LadybugDB store whose older writer was killed: its header says the store
is read at its last checkpoint, switching it to writing tells the one story, and
no byte of the file or its log changes."""

from __future__ import annotations

from conftest import SIZE, settle
from store_helpers import checksums

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.error_modal import ErrorModal
from memexplorer.app.widgets.node_table import NodeTable
from memexplorer.app.widgets.stores_tree import StoreItem, StoresTree, TableItem
from memexplorer.storage.exceptions import UnreplayableLogError

NOTE = "read-only, read at its last checkpoint; 1,448 bytes of log not replayed"


async def test_header_says_last_checkpoint_and_writing_is_refused(crashed_writer):
    folder = crashed_writer.parent
    before = checksums(folder)
    app = create_app(folder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        [store] = [c for c in tree.root.children if isinstance(c.data, StoreItem)]
        assert str(store.label).endswith(
            "hierarchical ladybug 41  at last checkpoint (log not replayed)"
        )
        agent = next(c for c in store.children if c.data.agent == "crash-agent")
        agent.expand()
        await settle(pilot)
        leaf = next(
            c for c in agent.children
            if isinstance(c.data, TableItem) and c.data.table.name == "SemanticMemory"
        )  # fmt: skip
        tree.select_node(leaf)
        await settle(pilot)
        table = app.screen.query_one(NodeTable)
        assert table.page is not None and table.page.total == 5
        assert app.screen.sub_title == f"{NOTE} · ladybug storage 41 · {crashed_writer}"
        tree.focus()
        tree.move_cursor(store)
        for key in ("w", "y"):  # switch to writing, confirmed: the open is refused
            await pilot.press(key)
            await settle(pilot, failures=(UnreplayableLogError,))
        assert isinstance(app.screen, ErrorModal)
        assert app.screen.error_title == UnreplayableLogError.title
        assert app.screen.message.startswith("A writer stopped without closing; its log")
        await pilot.press("escape")
        await settle(pilot)
        assert app.session.browsers.mode(crashed_writer) == NOTE
    assert checksums(folder) == before
