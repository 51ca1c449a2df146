"""The profile the query box remembers per store, and the engine refusing unknown profiles."""

from __future__ import annotations

import json
import stat

import pytest

from memexplorer.app.profile_choices import ProfileChoices
from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.storage.exceptions import InvalidInputError


def test_choices_are_per_store_private_and_forgiving(tmp_path):
    choices = ProfileChoices(tmp_path / "data" / "retrieval_profiles.json")
    assert choices.get(tmp_path / "a") == "library"
    choices.set(tmp_path / "a", "amplihack-rs")
    assert choices.get(tmp_path / "a") == "amplihack-rs"
    assert choices.get(tmp_path / "b") == "library"
    assert stat.S_IMODE(choices.path.stat().st_mode) == 0o600
    choices.path.write_text(json.dumps({str(tmp_path / "a"): "python", "x": 3}))
    assert choices.get(tmp_path / "a") == "library"
    choices.path.write_text("not json")
    assert choices.get(tmp_path / "a") == "library"


def test_an_unknown_profile_names_the_ones_there_are(tmp_path):
    with HierarchicalMemory("agent", tmp_path / "agent", mode="write") as memory:
        memory.store_knowledge("checkout-api runs 3 replicas", "replicas")
        with pytest.raises(InvalidInputError, match="Unknown retrieval profile 'python'"):
            memory.retrieve_subgraph("replicas", profile="python")


@pytest.mark.parametrize("profile", ["library", "amplihack-rs", "ranked"])
@pytest.mark.parametrize(
    "query",
    ["", "  ", "the of and", "?!.,;:", "MATCH (n) DETACH DELETE n", "' OR 1=1 --",
     'say "hi" \\ there', "x" * 10000, "Checkout-API, REPLICAS,"],
)  # fmt: skip
def test_bad_input_gives_the_profiles_answer(tmp_path, profile, query):
    with HierarchicalMemory("agent", tmp_path / "agent", mode="write") as memory:
        memory.store_knowledge("checkout-api runs 3 replicas", "replicas")
        subgraph = memory.retrieve_subgraph(query, profile=profile)
        assert subgraph.query == query
        assert isinstance(subgraph.to_llm_context(), str)
        if not query.strip() or query == "?!.,;:":
            assert subgraph.nodes == []
