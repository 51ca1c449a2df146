"""The demo home's other stores: cognitive memory, experience stores and flat sessions.

Each is written through the engine's public classes (CognitiveMemory,
ExperienceStore, SqliteFlatStore), with fixed texts; only ids and timestamps
change between runs. Timestamps are placed relative to now so that the same
things are old, compressed or expired whenever the demo is built.
Credentials are fake and say so.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from memexplorer.memory.cognitive_memory import CognitiveMemory
from memexplorer.memory.experience import Experience, ExperienceType
from memexplorer.memory.flat_graph import GraphFlatStore
from memexplorer.memory.flat_memory import SqliteFlatStore
from memexplorer.memory.flat_model import utc_now
from memexplorer.memory.store import ExperienceStore

__all__ = [
    "COGNITIVE_AGENT",
    "EXPERIENCE_STORES",
    "write_cognitive_store",
    "write_experience_stores",
    "write_flat_store",
]

#: The spec gives CognitiveMemory no default path (agents pass one); real homes
#: keep it beside the other per-agent stores, as <home>/cognitive_memory/<agent>/cognitive_db.
COGNITIVE_AGENT = "ops-agent"

_SENSORY = (
    ("log", "checkout-api pod 7f9c: readiness probe failed with HTTP 503", 3600),
    ("metric", "orders-db active connections at 50 of 50", 3600),
    ("log", "CI job deploy-prod #3121 echoed "
            "GITHUB_TOKEN=ghp_FAKEdemoGithubKey0000000000000000000000 (FAKE demo credential)",
     3600),
    ("alert", "Disk usage 91% on logs-02 (stale: this observation has expired)", 0),
)  # fmt: skip
_WORKING = (
    ("goal", "Restore checkout-api availability", 1.0),
    ("constraint", "Do not restart orders-db during business hours", 0.9),
    ("context", "Pool exhaustion began right after CHG-905 scaled checkout-api to 12 replicas",
     0.8),
)  # fmt: skip
_EPISODES = (
    ("Deployed checkout-api v2.14.0 to production", "deploy-bot"),
    ("Scaled checkout-api from 8 to 12 replicas (CHG-905)", "servicenow"),
    ("Paged for checkout-api 503s (INC-4471)", "pagerduty"),
    ("Raised the orders-db pool from 50 to 80 connections per pod", "terraform"),
    ("checkout-api error rate back under 0.1%; INC-4471 resolved", "pagerduty"),
    ("Wrote the INC-4471 postmortem draft", "confluence"),
)
#: Facts and the episode (index into _EPISODES) each was learned from.
_FACTS = (
    ("checkout-api deploys", "checkout-api is deployed by deploy-bot from the main branch", 0.9, 0),
    ("orders-db pool", "orders-db pool size is 80 connections per pod since INC-4471", 0.85, 3),
    ("orders-db pool", "orders-db pool size was 50 connections per pod before INC-4471", 0.6, 2),
    ("incident process", "Every SEV-2 incident gets a postmortem within five days", 0.8, 5),
)
_PROCEDURES = (
    ("Drain a Kubernetes node",
     ["kubectl cordon NODE", "kubectl drain NODE --ignore-daemonsets",
      "Wait for pods to reschedule", "kubectl uncordon NODE"], ["kubectl access to the cluster"]),
    ("Rotate orders-db credentials",
     ["Create the new database role in Vault", "Roll checkout-api pods", "Revoke the old role"],
     ["Vault admin policy", "A change ticket"]),
)  # fmt: skip
_PROSPECTIVE = (
    ("Review checkout-api capacity before the spring sale", "sale capacity",
     "Open a change for 16 replicas", 3),
    ("Follow up on the INC-4471 postmortem actions", "postmortem", "Check each action is done", 2),
    ("Renew the checkout.example TLS certificate", "certificate expiry",
     "Run the cert-renew job", 1),
)  # fmt: skip


def write_cognitive_store(home: Path) -> Path:
    """All six memory types for the SRE agent, plus a consolidation; returns the store path."""
    path = home / "cognitive_memory" / COGNITIVE_AGENT / "cognitive_db"
    path.parent.mkdir(parents=True)
    with CognitiveMemory(COGNITIVE_AGENT, path) as memory:
        sensory = [memory.record_sensory(m, raw, ttl) for m, raw, ttl in _SENSORY]
        for slot_type, content, relevance in _WORKING:
            memory.push_working(slot_type, content, "INC-4471", relevance)
        episodes = [memory.store_episode(text, source) for text, source in _EPISODES]
        memory.attend_to_sensory(sensory[0], "first symptom of INC-4471")
        for concept, content, confidence, episode in _FACTS:
            memory.store_fact(
                concept, content, confidence, tags=["sre"], source_episode_id=episodes[episode]
            )
        memory.consolidate_episodes(batch_size=4)
        for name, steps, prerequisites in _PROCEDURES:
            memory.store_procedure(name, steps, prerequisites)
        memory.recall_procedure("drain node")
        intentions = [memory.store_prospective(*item) for item in _PROSPECTIVE]
        # One intention fires (the postmortem), one is done (the certificate), one waits.
        memory.check_triggers("Postmortem review meeting moved to Friday")
        memory.resolve_prospective(intentions[2])
    return path


# An experience: (type, context, outcome, confidence, days ago, tags).
_Exp = tuple[ExperienceType, str, str, float, int, list[str]]
_S, _F, _P, _I = (ExperienceType.SUCCESS, ExperienceType.FAILURE, ExperienceType.PATTERN,
                  ExperienceType.INSIGHT)  # fmt: skip
_OPS_EXPERIENCES: tuple[_Exp, ...] = (
    (_S, "Scaled checkout-api for the winter sale", "Latency stayed under 300 ms at 4x traffic",
     0.9, 95, ["capacity"]),
    (_F, "Rolled out checkout-api v2.13 on a Friday", "Rollback after 20 minutes of 5xx errors",
     0.85, 60, ["deploys"]),
    (_P, "Connection pool exhaustion", "Raising replicas without raising the database pool "
     "limit exhausts orders-db connections", 0.9, 12, ["database", "capacity"]),
    (_S, "INC-4471 mitigation", "Raising the pool to 80 per pod cleared the 503s in 4 minutes",
     0.88, 10, ["incident"]),
    (_I, "Notebook scan during INC-4471", "Found the OpenAI key "
     "sk-proj-FAKEdemoOpsNotebook0000000000 (FAKE demo credential) in a shared notebook; "
     "revoked it", 0.8, 9, ["security"]),
    (_P, "Friday deploys", "Deploys after 15:00 on Fridays fail twice as often", 0.82, 3,
     ["deploys"]),
)  # fmt: skip
_SUPPORT_EXPERIENCES: tuple[_Exp, ...] = (
    (_S, "Acme Corp seat upgrade", "Upgraded to 120 seats without downtime", 0.9, 40, ["billing"]),
    (_F, "Refund outside the window", "Refused by billing: the old macro quoted 14 days", 0.8, 8,
     ["billing", "policy"]),
    (_I, "Customers paste credentials into tickets", "Mask pasted keys before escalating", 0.85,
     5, ["security"]),
    (_P, "Webhook failures", "Most webhook tickets are unsigned requests", 0.8, 2, ["webhooks"]),
)  # fmt: skip
_RESEARCH_EXPERIENCES: tuple[_Exp, ...] = (
    (_S, "Weekly copper brief", "Brief published with four LME closes", 0.9, 45, ["markets"]),
    (_F, "Contoso headcount", "Two sources disagree (12000 vs 11500); flagged for review", 0.7,
     14, ["company"]),
    (_I, "Slack digest bot", "The digest bot posts with xoxb-000000000000-FAKEdemoDigestBot "
     "(FAKE demo credential)", 0.75, 6, ["tooling"]),
    (_P, "Paste-site leaks", "Leaked keys show up on paste sites within a day", 0.8, 1,
     ["security"]),
)  # fmt: skip

#: (agent, backend): experience stores at <home>/memory/<agent>/ (experiences.db or kuzu_db).
EXPERIENCE_STORES = (
    ("ops-agent", "sqlite"),
    ("support-agent", "sqlite"),
    ("research-agent", "kuzu"),
)
_EXPERIENCES = {
    "ops-agent": _OPS_EXPERIENCES,
    "support-agent": _SUPPORT_EXPERIENCES,
    "research-agent": _RESEARCH_EXPERIENCES,
}


def write_experience_stores(home: Path) -> None:
    """Each agent's experiences; those older than 30 days end up compressed."""
    now = datetime.now().replace(microsecond=0)
    for agent, backend in EXPERIENCE_STORES:
        with ExperienceStore(agent, storage_path=home / "memory" / agent, backend=backend) as store:
            for kind, context, outcome, confidence, days, tags in _EXPERIENCES[agent]:
                store.add(
                    Experience(kind, context, outcome, confidence, now - timedelta(days=days),
                               metadata={"source": "demo"}, tags=tags)
                )  # fmt: skip


# Flat memories by session: (agent, memory type, title, content, importance).
_FLAT = {
    "2026-04-02-incident-4471": (
        ("ops-agent", "learning", "Pool sizing",
         "Scale the orders-db pool with checkout-api replicas", 8),
        ("ops-agent", "decision", "Rollback rule",
         "Roll back first, debug later, when 5xx errors exceed 2%", 7),
        ("ops-agent", "learning", "Dashboards",
         "The Grafana datasource uses postgresql://grafana_ro:FakeDemoPw-ro-7@metrics-db.internal."
         "example:5432/grafana (FAKE demo credential); move it to Vault", 6),
        ("support-agent", "context", "Status page",
         "Customers were told checkout is degraded at 10:14 UTC", 5),
    ),
    "2026-04-03-market-brief": (
        ("research-agent", "learning", "Sources",
         "LME closes are published at 17:00 London time", 6),
        ("research-agent", "pattern", "Conflicting numbers",
         "When two sources disagree, quote both and the date of each", 7),
    ),
    "2026-04-05-billing-triage": (
        ("support-agent", "learning", "Refund window",
         "Quote the 2026 billing policy (30 days), never macro M-12", 9),
        ("support-agent", "learning", "Seat changes",
         "Seat changes take effect at the next invoice", 5),
    ),
    "2026-04-06-code-review": (
        ("reviewer-agent", "learning", "Config review",
         "Connection strings belong in Vault, never in Helm values", 8),
    ),
}  # fmt: skip
_EXPIRED = (
    "2026-04-02-incident-4471", "ops-agent", "context", "Temporary workaround",
    "checkout-api pinned to 12 replicas until the pool change lands (expired)", 4,
)  # fmt: skip


_GRAPH_TYPES = {"decision": "procedural", "context": "episodic", "pattern": "semantic"}


def write_flat_store(home: Path) -> Path:
    """memory.db and its graph-db twin memory_graph.db: four sessions, four agents and
    one expired memory each (so both flat backends have something to show, and
    `memexplorer tree` works on the demo with either); returns memory.db's path."""
    for store_class, name in ((SqliteFlatStore, "memory.db"), (GraphFlatStore, "memory_graph.db")):
        # The graph-db schema has one table per memory type (seed 002's graph twin).
        types = _GRAPH_TYPES if store_class is GraphFlatStore else {}
        with store_class(home / name, read_only=False) as store:
            for session, learnings in _FLAT.items():
                for agent, memory_type, title, content, importance in learnings:
                    store.store_session_learning(
                        session, agent, content, title=title,
                        memory_type=types.get(memory_type, memory_type),
                        importance=importance, confidence=0.8, tags=[memory_type],
                    )  # fmt: skip
            session, agent, memory_type, title, content, importance = _EXPIRED
            store.store_session_learning(
                session, agent, content, title=title,
                memory_type=types.get(memory_type, memory_type),
                importance=importance, expires_at=utc_now() - timedelta(days=1),
            )  # fmt: skip
    return home / "memory.db"
