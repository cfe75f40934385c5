"""The REST API against its own OpenAPI schema, by schemathesis (property-based, bounded examples per operation):
no server error, every status code and body as documented, one error shape — also for unknown routes."""

from __future__ import annotations

import pytest
import schemathesis
from actors import ADMIN
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig
from schemathesis.core.parameters import ParameterLocation
from starlette.testclient import TestClient

from agent.serve.api import create_app
from memory import apikeys

#: examples per operation: enough to hit every documented branch, cheap enough for the suite
EXAMPLES = 8


@pytest.fixture
def app(plumbing_svc):
    app = create_app(plumbing_svc)
    app.state.key = apikeys.create(plumbing_svc.storage, "schemathesis", actor=ADMIN)[0]
    plumbing_svc.remember("alice", "I live in Hangzhou")  # something to find, list, edit and delete
    return app


#: a request the schema allows may still be refused with the documented 400 for what a schema cannot say (a text
#: over the server's MEMLENS_MAX_MESSAGE_CHARS setting, a filter with an unknown operator); every other check is
#: schemathesis's default. A body past MEMLENS_API_MAX_BODY_BYTES is refused with the documented 413 before its
#: schema is read, so 413 counts as refusing schema-violating data (a list over its maxItems can be over 1 MB too).
REFUSED = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]
CONFIG = SchemathesisConfig.from_dict(
    {
        "checks": {
            "positive_data_acceptance": {"expected-statuses": ["2xx", "400", "401", "403", "404", "409"]},
            "negative_data_rejection": {"expected-statuses": REFUSED},
        }
    }
)


@pytest.fixture
def api_schema(app):
    return schemathesis.openapi.from_asgi("/openapi.json", app, config=CONFIG)


schema = schemathesis.pytest.from_fixture("api_schema")


def _auth(case, app) -> dict[str, str]:
    """The key, unless the case breaks the Authorization header on purpose (negative headers: left out, or of the
    wrong form): putting the key there would make that case valid, and its 200 would then be read as
    schema-violating data accepted."""
    if case.meta is not None and case.meta.is_negative_at(ParameterLocation.HEADER):
        return {}
    return {"Authorization": f"Bearer {app.state.key}"}


@pytest.mark.slow  # ~25 s: every operation, bounded examples
@schema.exclude(path="/v1/chat").parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_response_is_documented(case, app):
    """Server errors, undocumented status codes, bodies that do not match the schema: each fails the test."""
    case.call_and_validate(headers=_auth(case, app))


@schema.include(path="/v1/chat").parametrize()
@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
def test_chat_responses_are_documented(case, app):
    """/v1/chat runs a whole agent turn (offline model), so fewer examples."""
    case.call_and_validate(headers=_auth(case, app))


def test_unknown_routes_and_hostile_paging_use_the_error_shape(app):
    with TestClient(app) as c:
        auth = {"Authorization": f"Bearer {app.state.key}"}
        for r in (
            c.get("/nope"),
            c.put("/v1/health"),
            c.get("/v1/memories", params={"user_id": "a", "offset": 2**70}, headers=auth),
        ):
            assert r.status_code in (404, 405, 422) and set(r.json()) <= {"error", "detail"} and r.json()["error"]
        big = c.get("/v1/memories", params={"user_id": "alice", "offset": 10**9}, headers=auth)
        assert big.status_code == 422 and big.json()["detail"][0]["where"] == "query.offset"
        # a one-valued filter given twice is refused, not read as its last value (schemathesis found it accepted)
        twice = c.get("/v1/memories", params=[("user_id", "alice"), ("run_id", "a"), ("run_id", "b")], headers=auth)
        assert twice.status_code == 422 and twice.json()["detail"] == [
            {"where": "query.run_id", "problem": "given more than once"}
        ]
