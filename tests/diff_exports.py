"""Two hand-written exports of ops-agent whose differences are known (tests/diff and
the diff screen's snapshot): facts added, removed, changed by id and by concept, a
confidence raised, a chain step, edges added and removed, episodes."""

from __future__ import annotations

__all__ = ["AFTER", "BEFORE", "export", "fact", "supersedes"]


def fact(memory_id: str, concept: str, content: str, confidence: float = 0.8) -> dict:
    return {
        "memory_id": memory_id,
        "concept": concept,
        "content": content,
        "confidence": confidence,
        "source_id": "",
        "tags": [],
        "metadata": {},
        "created_at": "2026-11-20T10:00:00",
        "entity_name": "",
    }


def episode(memory_id: str, content: str) -> dict:
    return {
        "memory_id": memory_id,
        "content": content,
        "source_label": "chat",
        "tags": [],
        "metadata": {},
        "created_at": "2026-11-20T09:00:00",
    }


def export(agent: str, semantic: list, episodic: list, **edges: list) -> dict:
    data = {
        "agent_name": agent,
        "exported_at": "1795600000",
        "format_version": "1.1",
        "semantic_nodes": semantic,
        "episodic_nodes": episodic,
    }
    for key in (
        "similar_to_edges",
        "derives_from_edges",
        "supersedes_edges",
        "transitioned_to_edges",
    ):
        data[key] = edges.get(key, [])
    return data


def supersedes(newer: str, older: str) -> dict:
    return {"source_id": newer, "target_id": older, "reason": "newer value", "temporal_delta": ""}


BEFORE = export(
    "ops-agent",
    [
        fact("f-replicas-1", "checkout replicas", "checkout-api runs 3 replicas"),
        fact("f-replicas-2", "checkout replicas", "checkout-api runs 5 replicas"),
        fact("f-owner", "service owner", "checkout-api is owned by Payments"),
        fact("f-port", "service port", "checkout-api listens on 8080"),
        fact("f-old-region", "cluster region", "the cluster runs in eu-west-1"),
        fact("f-bill", "aws bill", "the AWS bill was 900 USD", 0.6),
    ],
    [episode("e-1", "talked about replicas"), episode("e-2", "talked about ports")],
    supersedes_edges=[supersedes("f-replicas-2", "f-replicas-1")],
    similar_to_edges=[
        {"source_id": "f-owner", "target_id": "f-port", "weight": 0.4, "metadata": {}}
    ],
    derives_from_edges=[
        {"source_id": "f-port", "target_id": "e-2", "extraction_method": "llm", "confidence": 0.9}
    ],
)

AFTER = export(
    "ops-agent",
    [
        fact("f-replicas-1", "checkout replicas", "checkout-api runs 3 replicas"),
        fact("f-replicas-2", "checkout replicas", "checkout-api runs 5 replicas"),
        fact("f-replicas-3", "checkout replicas", "checkout-api runs 7 replicas"),  # a step
        fact("f-owner", "service owner", "checkout-api is owned by Platform"),  # changed
        fact("f-new-region", "Cluster Region", "the cluster runs in us-east-2"),  # by concept
        fact("f-bill", "aws bill", "the AWS bill was 900 USD", 0.9),  # confidence
        fact("f-dns", "dns hosting", "DNS is hosted on Route 53"),  # added
    ],
    [episode("e-1", "talked about replicas"), episode("e-3", "talked about DNS")],
    supersedes_edges=[
        supersedes("f-replicas-2", "f-replicas-1"),
        supersedes("f-replicas-3", "f-replicas-2"),
    ],
    similar_to_edges=[
        {"source_id": "f-owner", "target_id": "f-bill", "weight": 0.5, "metadata": {}}
    ],
    derives_from_edges=[
        {"source_id": "f-dns", "target_id": "e-3", "extraction_method": "llm", "confidence": 0.9}
    ],
    transitioned_to_edges=[
        {
            "source_id": "f-replicas-3",
            "target_id": "f-replicas-2",
            "from_value": "7",
            "to_value": "5",
            "turn": 3,
            "transition_type": "update",
        }
    ],
)
