"""One stored value scrubbed: plain text, and base64 of JSON that must still decode
to JSON of the same shape. Expected values are written out by hand."""

from __future__ import annotations

import base64
import json

import pytest

from memexplorer.operator.redaction_values import INCLUDE_LOW, scrubbed_value


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_plain_text_with_a_secret_has_it_replaced() -> None:
    assert scrubbed_value("password=hunter2 ok") == "password=[REDACTED] ok"


def test_values_without_secrets_are_left_alone() -> None:
    assert scrubbed_value("checkout-api runs 12 replicas") is None
    assert scrubbed_value(b64('{"note": "nothing to hide"}')) is None


def test_low_confidence_secrets_are_taken_unless_the_redaction_says_high_only() -> None:
    prose = "the password is swordfish"
    assert scrubbed_value(prose) == "the password [REDACTED] swordfish"
    token = INCLUDE_LOW.set(False)
    try:
        assert scrubbed_value(prose) is None
        assert scrubbed_value("password=hunter2") == "password=[REDACTED]"
    finally:
        INCLUDE_LOW.reset(token)


def test_base64_json_keeps_its_own_text_when_the_scrub_keeps_its_shape() -> None:
    """Compact JSON stays compact: the scrubbed text is encoded as it is."""
    stored = b64('{"note":"password=hunter2","n":1}')
    assert scrubbed_value(stored) == b64('{"note":"password=[REDACTED]","n":1}')


def test_a_secret_across_json_syntax_is_scrubbed_string_by_string() -> None:
    """Scrubbing the text would eat a quote and break the JSON; each string is
    scrubbed instead and the value written back as JSON."""
    stored = b64(json.dumps({"cfg": 'password="hunter2"'}))
    result = scrubbed_value(stored)
    assert result == b64('{"cfg": "password=\\"[REDACTED]\\""}')
    assert json.loads(base64.b64decode(result)) == {"cfg": 'password="[REDACTED]"'}


def test_base64_json_unchanged_when_no_string_holds_a_secret_alone() -> None:
    """'password:' and 'hunter2' only look like a secret read across two strings;
    neither alone is one, so the value comes back as it was (never broken)."""
    stored = b64('["password:","hunter2"]')  # compact: written back as it was, not re-dumped
    assert scrubbed_value(stored) == stored


def test_a_scrub_that_would_change_the_jsons_shape_is_not_taken() -> None:
    """A database URL's password runs to the next '@', here across three values: the
    scrubbed text is valid JSON of another shape (one string), so each string is
    scrubbed alone instead, and none alone holds a secret."""
    stored = b64('["mysql://u:pw1","b",{"c":1},"d@x"]')
    assert scrubbed_value(stored) == stored


@pytest.mark.parametrize("stored", [b64('["password:", "hunter2"]'), b64('{"password": "x"}')])
def test_whatever_comes_back_from_base64_json_still_decodes(stored: str) -> None:
    result = scrubbed_value(stored)
    assert result is not None
    json.loads(base64.b64decode(result, validate=True))
