"""Query cost and safety: the reference's score of a SQL query, and what counts as a read.

An agent's capabilities cap the cost of its custom queries
(:class:`memexplorer.memory.security.SecureMemoryBackend`); this module only scores.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memexplorer.storage.exceptions import QueryCostExceededError

__all__ = ["COST_RULES", "CostRule", "QueryValidator"]


@dataclass(frozen=True)
class CostRule:
    """A feature of a query that makes it more expensive; ``per_match`` charges each one."""

    name: str
    regex: re.Pattern[str]
    points: int
    per_match: bool = False

    def cost(self, sql: str) -> int:
        if self.per_match:
            return self.points * len(self.regex.findall(sql))
        return self.points if self.regex.search(sql) else 0


_BASE_QUERY_COST = 1
_SELECT = re.compile(r"\bSELECT\b", re.IGNORECASE)
_LIMIT = re.compile(r"\bLIMIT\b", re.IGNORECASE)
_STARTS_WITH_SELECT = re.compile(r"^\s*SELECT\b", re.IGNORECASE)
_WRITE_KEYWORDS = re.compile(
    r"\b(?:DELETE|UPDATE|INSERT|DROP|TRUNCATE|ALTER|CREATE|REPLACE|GRANT|REVOKE"
    r"|ATTACH|DETACH|PRAGMA|VACUUM|MERGE)\b",
    re.IGNORECASE,
)

COST_RULES: tuple[CostRule, ...] = (
    CostRule("full_scan", re.compile(r"SELECT\s+\*\s+FROM\s+\w+", re.IGNORECASE), 10),
    CostRule("join", re.compile(r"\bJOIN\b", re.IGNORECASE), 5, per_match=True),
    CostRule("subquery", re.compile(r"SELECT.*\(.*SELECT", re.IGNORECASE | re.DOTALL), 3),
    CostRule("order_by", re.compile(r"\bORDER\s+BY\b", re.IGNORECASE), 2),
)
_UNBOUNDED_COST = 20


class QueryValidator:
    """Scores queries so an agent cannot run unbounded or very expensive ones.

    The score is the reference's: 1, plus 10 for ``SELECT * FROM``, 5 per JOIN,
    3 for a subquery, 2 for ORDER BY, and 20 for a SELECT without LIMIT.
    """

    COST_RULES: tuple[CostRule, ...] = COST_RULES

    def estimate_cost(self, sql: str) -> int:
        """The query's cost score."""
        cost = _BASE_QUERY_COST + sum(rule.cost(sql) for rule in self.COST_RULES)
        if _SELECT.search(sql) and not _LIMIT.search(sql):
            cost += _UNBOUNDED_COST
        return cost

    def validate_query(self, sql: str, max_cost: int) -> None:
        """Raise :class:`QueryCostExceededError` when the cost is above ``max_cost``."""
        cost = self.estimate_cost(sql)
        if cost > max_cost:
            raise QueryCostExceededError(
                f"Query cost ({cost}) exceeds limit ({max_cost}). "
                "Add a LIMIT, use fewer JOINs or simplify the query."
            )

    def is_safe_query(self, sql: str) -> bool:
        """True only for a read: it starts with SELECT and names no writing statement."""
        return bool(_STARTS_WITH_SELECT.match(sql)) and not _WRITE_KEYWORDS.search(sql)
