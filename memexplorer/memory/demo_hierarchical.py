"""The demo home's HierarchicalMemory stores: an SRE, a research and a support agent.

Written through :class:`HierarchicalMemory` only, so the stores hold exactly
what a real agent using the library would leave: episodes, facts derived from
them (DERIVES_FROM), SIMILAR_TO edges (some carrying a numeric contradiction
between two sources) and temporal chains (SUPERSEDES + TRANSITIONED_TO) built
from ``temporal_metadata``. Every text is fixed, so each run holds the same
facts; ids and timestamps are new each time. Credentials are fake and say so.
"""

from __future__ import annotations

from pathlib import Path

from memexplorer.memory.hierarchical_memory import HierarchicalMemory

__all__ = ["write_hierarchical_stores"]

#: (agent, store file under <home>/hierarchical_memory/<agent>/): seed 002's
#: preferred ``graph_db`` for two agents, the legacy ``kuzu_db`` for the third,
#: as homes that lived through the rename hold both.
HIERARCHICAL_STORES = (
    ("ops-agent", "graph_db"),
    ("research-agent", "graph_db"),
    ("support-agent", "kuzu_db"),
)

# A fact: (content, concept, confidence, tags).
Fact = tuple[str, str, float, list[str]]

_OPS_RUNBOOK: tuple[Fact, ...] = (
    ("Service checkout-api is owned by the Payments team", "service ownership", 0.95, ["catalog"]),
    ("checkout-api is written in Go", "service language", 0.9, ["catalog", "go"]),
    ("checkout-api listens on port 8443", "service ports", 0.9, ["catalog", "networking"]),
    ("Page when checkout-api p99 latency exceeds 800 ms", "alert thresholds", 0.8, ["alerts"]),
)
#: The wiki disagrees with the runbook: a SIMILAR_TO edge records the contradiction.
_OPS_WIKI: Fact = (
    "Page when checkout-api p99 latency exceeds 500 ms", "alert thresholds", 0.7, ["alerts"],
)  # fmt: skip
_OPS_REPLICAS = (3, 4, 6, 8, 12)
_OPS_INCIDENT = (
    "INC-4471: checkout-api returned 503s for 14 minutes because the orders-db connection "
    "pool was exhausted. The pod log printed the connection string "
    "postgres://orders_app:FakeDemoPw-2026@orders-db.internal.example:5432/orders "
    "(FAKE demo credential, not a real database)."
)
_OPS_INCIDENT_FACTS: tuple[Fact, ...] = (
    ("orders-db allows 50 connections per checkout-api pod", "orders-db connection pool", 0.85,
     ["database", "capacity"]),
    ("INC-4471 root cause: connection pool exhaustion after the scale-up in CHG-905",
     "incident root cause", 0.8, ["incident"]),
)  # fmt: skip
_OPS_CI_NOTE = (
    "SEC-210 review: the CI deploy user ci-deployer still signs in with a long-lived access key"
)
_OPS_CI_FACT: Fact = (
    "ci-deployer authenticates to AWS with access key id AKIAFAKEDEMOKEY00001 "
    "(FAKE demo credential); rotate it to OIDC federation",
    "ci deploy credentials", 0.9, ["security", "aws"],
)  # fmt: skip


def _write_ops_agent(path: Path) -> None:
    with HierarchicalMemory("ops-agent", path) as memory:
        runbook = memory.store_episode(
            "Runbook review: checkout-api ownership, ports and alerting", "confluence:OPS-12"
        )
        for content, concept, confidence, tags in _OPS_RUNBOOK:
            memory.store_knowledge(content, concept, confidence, source_id=runbook, tags=tags)
        wiki = memory.store_episode(
            "SRE guild wiki, alerting policy v2: tighter latency paging", "wiki:sre-alerting"
        )
        content, concept, confidence, tags = _OPS_WIKI
        memory.store_knowledge(content, concept, confidence, source_id=wiki, tags=tags)
        for turn, replicas in enumerate(_OPS_REPLICAS, 1):
            change = memory.store_episode(
                f"Change CHG-{900 + turn}: scaled checkout-api to {replicas} replicas",
                f"servicenow:CHG-{900 + turn}",
            )
            memory.store_knowledge(
                f"checkout-api runs {replicas} replicas in production",
                "checkout-api replicas",
                0.9,
                source_id=change,
                tags=["capacity"],
                temporal_metadata={"temporal_index": turn, "source_date": f"2026-0{turn}-01"},
            )
        incident = memory.store_episode(_OPS_INCIDENT, "pagerduty:INC-4471")
        for content, concept, confidence, tags in _OPS_INCIDENT_FACTS:
            memory.store_knowledge(content, concept, confidence, source_id=incident, tags=tags)
        review = memory.store_episode(_OPS_CI_NOTE, "jira:SEC-210")
        content, concept, confidence, tags = _OPS_CI_FACT
        memory.store_knowledge(content, concept, confidence, source_id=review, tags=tags)


_JOB_TITLES = (("Senior Engineer", 63), ("Staff Engineer", 65), ("Principal Engineer", 67))
_COPPER = (("2026-03-02", 8450), ("2026-03-09", 8720), ("2026-03-16", 9100), ("2026-03-23", 8890))
_HEADCOUNT = (
    ("Contoso annual report 2025: the company employs 12000 people", "contoso:annual-report"),
    ("Newswire: Contoso employs 11500 people after the spring layoffs", "web:newswire"),
)
_LEAK = (
    "Leak monitor hit: a paste titled 'contoso deploy' contained a private key "
    "(FAKE demo key, generated for this demo):\n"
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEAFAKEDEMOKEYdoNotUseThisIsNotARealKey0000000000\n"
    "-----END RSA PRIVATE KEY-----"
)


def _write_research_agent(path: Path) -> None:
    with HierarchicalMemory("research-agent", path) as memory:
        profile = memory.store_episode(
            "Profile: Sarah Chen joined Contoso as a senior engineer and was promoted twice",
            "web:contoso-newsroom",
        )
        for turn, (title, grade) in enumerate(_JOB_TITLES, 1):
            memory.store_knowledge(
                f"Sarah Chen is {title} at Contoso, pay grade {grade}",
                "Sarah Chen job",
                0.85,
                source_id=profile,
                tags=["people"],
                temporal_metadata={"temporal_index": turn},
            )
        for turn, (day, price) in enumerate(_COPPER, 1):
            report = memory.store_episode(
                f"LME daily report {day}: copper closed at {price} USD per tonne", "lme:daily"
            )
            memory.store_knowledge(
                f"Copper traded at {price} USD per tonne",
                "copper price",
                0.8,
                source_id=report,
                tags=["markets"],
                temporal_metadata={"temporal_index": turn, "source_date": day},
            )
        for content, label in _HEADCOUNT:
            source = memory.store_episode(content, label)
            number = content.split(" employs ")[1].split()[0]
            memory.store_knowledge(
                f"Contoso has {number} employees", "Contoso headcount", 0.75,
                source_id=source, tags=["company"],
            )  # fmt: skip
        leak = memory.store_episode(_LEAK, "leak-monitor:paste")
        memory.store_knowledge(
            "A private key attributed to Contoso was posted on a paste site; "
            "Contoso security was notified",
            "contoso exposure",
            0.7,
            source_id=leak,
            tags=["security"],
        )


_SEATS = (("SUP-1042", 50), ("SUP-1077", 75), ("SUP-1103", 120))
_REFUNDS = (
    ("Billing policy 2026: refunds are allowed within 30 days of purchase", "policy:billing-2026"),
    ("Old support macro M-12: refunds are allowed within 14 days of purchase", "macro:M-12"),
)
_PASTED_KEY = (
    "Ticket SUP-1107: Globex pasted their OpenAI key sk-FAKEdemoGlobexKey000000000000 "
    "(FAKE demo credential) into the chat while asking why their webhook calls fail"
)


def _write_support_agent(path: Path) -> None:
    with HierarchicalMemory("support-agent", path) as memory:
        for turn, (ticket, seats) in enumerate(_SEATS, 1):
            source = memory.store_episode(
                f"Ticket {ticket}: Acme Corp asks to change their plan to {seats} seats",
                f"zendesk:{ticket}",
            )
            memory.store_knowledge(
                f"Acme Corp has {seats} seats on the Enterprise plan",
                "Acme Corp seats",
                0.9,
                source_id=source,
                tags=["accounts", "billing"],
                temporal_metadata={"temporal_index": turn},
            )
        for content, label in _REFUNDS:
            source = memory.store_episode(content, label)
            days = content.split(" within ")[1].split()[0]
            memory.store_knowledge(
                f"Refunds are allowed within {days} days of purchase", "refund window", 0.8,
                source_id=source, tags=["billing", "policy"],
            )  # fmt: skip
        ticket = memory.store_episode(_PASTED_KEY, "zendesk:SUP-1107")
        memory.store_knowledge(
            "Globex webhook calls fail because their endpoint rejects unsigned requests",
            "Globex webhooks",
            0.75,
            source_id=ticket,
            tags=["webhooks"],
        )
        memory.store_knowledge(
            "Ask customers to rotate any credential they paste into a ticket",
            "support guidance",
            0.9,
            tags=["security", "policy"],
        )


_WRITERS = {
    "ops-agent": _write_ops_agent,
    "research-agent": _write_research_agent,
    "support-agent": _write_support_agent,
}


def write_hierarchical_stores(home: Path) -> None:
    """Write each agent's store under ``<home>/hierarchical_memory/<agent>/``."""
    for agent, file_name in HIERARCHICAL_STORES:
        _WRITERS[agent](home / "hierarchical_memory" / agent / file_name)
