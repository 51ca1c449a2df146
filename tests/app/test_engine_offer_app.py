"""The app meets a store whose release is missing: it offers the exact command.

The crashed-writer fixture was written by ladybug 0.17.1 (its manifest); the
pinned ladybug reads it only at its last checkpoint (5 facts), ladybug 0.17.1
with its log (8). Choosing the store offers `memexplorer engines add
ladybug==0.17.1`: c copies it, y installs it (not under serve), and the store is
then read with it. No byte of the file or its log changes.
"""

from __future__ import annotations

import pytest
from conftest import SIZE, settle
from old_stores import write_kuzu_0101_store
from store_helpers import checksums

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.engine_offer_modal import EngineOfferModal
from memexplorer.app.widgets.node_table import NodeTable
from memexplorer.app.widgets.stores_tree import StoreItem, StoresTree, TableItem

COMMAND = "memexplorer engines add ladybug==0.17.1"


def _store_node(app):
    tree = app.screen.query_one(StoresTree)
    [store] = [c for c in tree.root.children if isinstance(c.data, StoreItem)]
    return tree, store


async def _semantic_total(app, pilot, store) -> int:
    tree = app.screen.query_one(StoresTree)
    agent = next(c for c in store.children if c.data.agent == "crash-agent")
    agent.expand()
    await settle(pilot)
    leaf = next(
        c for c in agent.children
        if isinstance(c.data, TableItem) and c.data.table.name == "SemanticMemory"
    )  # fmt: skip
    tree.select_node(leaf)
    await settle(pilot)
    page = app.screen.query_one(NodeTable).page
    assert page is not None
    return page.total


async def test_choosing_the_store_offers_the_command_and_c_copies_it(
    crashed_writer, crashed_manifest
):
    before = checksums(crashed_writer.parent)
    app = create_app(crashed_writer.parent)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        said = [(n.title, n.message) for n in app._notifications]
        assert said == [(
            "Another engine release wanted",
            f"ladybug_db: to read it whole, run {COMMAND} (choose the store for the offer)",
        )]  # fmt: skip
        app.clear_notifications()
        app.screen.action_reload()  # a reload does not say it again
        await settle(pilot)
        assert list(app._notifications) == []
        tree, store = _store_node(app)
        tree.select_node(store)
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, EngineOfferModal)
        assert modal.command == COMMAND
        assert str(modal.query_one("#command").render()) == COMMAND
        assert str(modal.query_one("#title").render()) == "This store needs ladybug 0.17.1"
        assert "c copies the command · y installs it now" in str(modal.query_one("#keys").render())
        await pilot.press("c")
        assert app.clipboard == COMMAND
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, EngineOfferModal)
        checkpointed = len(crashed_manifest["facts_at_last_checkpoint"])
        assert await _semantic_total(app, pilot, store) == checkpointed
    assert checksums(crashed_writer.parent) == before


async def test_a_served_session_only_shows_the_command(
    crashed_writer, monkeypatch, _private_engine_cache
):
    monkeypatch.setenv("MEMEXPLORER_READ_ONLY", "1")
    monkeypatch.setenv("TEXTUAL_DRIVER", "textual.drivers.web_driver:WebDriver")
    app = create_app(crashed_writer.parent)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree, store = _store_node(app)
        tree.select_node(store)
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, EngineOfferModal) and modal.command == COMMAND
        keys = str(modal.query_one("#keys").render())
        assert "this served session does not install engines" in keys
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, EngineOfferModal)  # nothing started
        assert not modal.installing
    assert not _private_engine_cache.exists()


async def test_a_store_read_by_a_cached_release_says_so_in_the_tree(
    crashed_writer, crashed_manifest, ladybug_0171_cache
):
    before = checksums(crashed_writer.parent)
    app = create_app(crashed_writer.parent)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree, store = _store_node(app)
        assert str(store.label).endswith("hierarchical ladybug 41  read by ladybug 0.17.1")
        tree.select_node(store)
        await settle(pilot)
        assert not isinstance(app.screen, EngineOfferModal)  # nothing missing: no offer
        every = crashed_manifest["facts_at_last_checkpoint"] + crashed_manifest["facts_only_in_log"]
        assert await _semantic_total(app, pilot, store) == len(every)
        assert app.screen.sub_title == (
            "read-only, read by ladybug 0.17.1, its log replayed on a private copy"
            f" · ladybug storage 41 · {crashed_writer}"
        )
    assert checksums(crashed_writer.parent) == before


@pytest.mark.slow
async def test_y_installs_the_release_and_the_store_is_read_with_it(
    crashed_writer, crashed_manifest, _private_engine_cache
):
    before = checksums(crashed_writer.parent)
    app = create_app(crashed_writer.parent)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree, store = _store_node(app)
        tree.select_node(store)
        await settle(pilot)
        assert isinstance(app.screen, EngineOfferModal)
        await pilot.press("y")
        await settle(pilot)
        assert not isinstance(app.screen, EngineOfferModal)
        tree, store = _store_node(app)
        assert str(store.label).endswith("read by ladybug 0.17.1")
        every = crashed_manifest["facts_at_last_checkpoint"] + crashed_manifest["facts_only_in_log"]
        assert await _semantic_total(app, pilot, store) == len(every)
    assert (_private_engine_cache / "ladybug-0.17.1").is_dir()
    assert checksums(crashed_writer.parent) == before


@pytest.mark.slow
async def test_an_old_kuzu_store_is_offered_then_read_with_its_release(
    _installed_kuzu_0101, tmp_path, monkeypatch
):
    store_path = write_kuzu_0101_store(_installed_kuzu_0101, tmp_path / "old" / "agent" / "kuzu_db")
    before = checksums(store_path)
    app = create_app(store_path.parent)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree, store = _store_node(app)
        assert str(store.label).endswith("kuzu 38 needs kuzu 0.10.1")
        tree.select_node(store)
        await settle(pilot)
        assert isinstance(app.screen, EngineOfferModal)
        assert app.screen.command == "memexplorer engines add kuzu==0.10.1"
        await pilot.press("escape")
        await settle(pilot)
    monkeypatch.setenv("MEMEXPLORER_ENGINE_CACHE", str(_installed_kuzu_0101))
    app = create_app(store_path.parent)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree, store = _store_node(app)
        assert str(store.label).endswith("hierarchical kuzu 38  read by kuzu 0.10.1")
        agent = next(c for c in store.children if c.data.agent == "old-agent")
        agent.expand()
        await settle(pilot)
        leaf = next(
            c for c in agent.children
            if isinstance(c.data, TableItem) and c.data.table.name == "SemanticMemory"
        )  # fmt: skip
        tree.select_node(leaf)
        await settle(pilot)
        page = app.screen.query_one(NodeTable).page
        assert page is not None and page.total == 2  # old-agent's two facts
    assert checksums(store_path) == before
