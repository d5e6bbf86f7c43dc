"""Every endpoint through the real HTTP server (in-memory store): answers, error codes, id dedupe."""

from __future__ import annotations

import http.client
import json
import time
from typing import Any
from urllib.parse import quote

import pytest

from ioscale.services.registry.canonical import parse_schema

CT = "application/vnd.schemaregistry.v1+json"

V1 = {"type": "record", "name": "Sample", "namespace": "io.ioscale.test", "fields": [{"name": "a", "type": "int"}]}
V2 = {**V1, "fields": [*V1["fields"], {"name": "b", "type": "string", "default": ""}]}
V2_REQUIRED = {**V1, "fields": [*V1["fields"], {"name": "b", "type": "string"}]}
C1 = parse_schema(json.dumps(V1)).canonical
C2 = parse_schema(json.dumps(V2)).canonical


def test_root_and_content_type(api) -> None:
    ans = api.get("/")
    assert (ans.status, ans.body) == (200, {})
    assert ans.headers["Content-Type"] == CT


def test_register_returns_id_and_same_schema_same_id(api) -> None:
    assert api.register("s-value", V1).body == {"id": 1}
    assert api.register("s-value", V1).body == {"id": 1}
    # whitespace, key order and {"type": "int"} vs "int" do not make a new schema
    variant = {"fields": [{"type": {"type": "int"}, "name": "a"}], "namespace": "io.ioscale.test", "name": "Sample",
               "type": "record"}
    assert api.register("s-value", json.dumps(variant, indent=4)).body == {"id": 1}
    assert api.get("/subjects/s-value/versions").body == [1]


def test_ids_are_global_across_subjects(api) -> None:
    assert api.register("a-value", V1).body == {"id": 1}
    assert api.register("b-value", V1).body == {"id": 1}
    assert api.get("/subjects/b-value/versions/1").body == {"subject": "b-value", "version": 1, "id": 1, "schema": C1}
    assert api.register("b-value", V2).body == {"id": 2}
    assert api.get("/schemas/ids/1/versions").body == [{"subject": "a-value", "version": 1},
                                                       {"subject": "b-value", "version": 1}]
    assert api.get("/schemas/ids/1/subjects").body == ["a-value", "b-value"]
    assert api.get("/schemas/ids/2/versions").body == [{"subject": "b-value", "version": 2}]


def test_doc_change_is_a_new_schema(api) -> None:
    assert api.register("s", V1).body == {"id": 1}
    assert api.register("s", {**V1, "doc": "now documented"}).body == {"id": 2}


def test_schema_by_id(api) -> None:
    api.register("s-value", V1)
    ans = api.get("/schemas/ids/1")
    assert (ans.status, ans.body) == (200, {"schema": C1})
    assert api.get("/schemas/ids/1?subject=s-value").body == {"schema": C1}
    assert api.get("/schemas/ids/1?fetchMaxId=true").body == {"schema": C1, "maxId": 1}
    raw = api.get("/schemas/ids/1/schema")
    assert raw.body == V1 | {}  # the schema itself, as JSON
    missing = api.get("/schemas/ids/99")
    assert (missing.status, missing.body) == (404, {"error_code": 40403, "message": "Schema 99 not found"})
    assert api.get("/schemas/ids/99/versions").body["error_code"] == 40403
    assert api.get("/schemas/ids/abc").status == 404
    assert api.get("/schemas/types").body == ["AVRO"]


def test_subjects_and_versions(api) -> None:
    api.register("b-value", V1)
    api.register("a-value", V1)
    api.register("a-value", V2)
    assert api.get("/subjects").body == ["a-value", "b-value"]
    assert api.get("/subjects?subjectPrefix=a-").body == ["a-value"]
    assert api.get("/subjects/a-value/versions").body == [1, 2]
    latest = {"subject": "a-value", "version": 2, "id": 2, "schema": C2}
    assert api.get("/subjects/a-value/versions/latest").body == latest
    assert api.get("/subjects/a-value/versions/-1").body == latest
    assert api.get("/subjects/a-value/versions/2").body == latest
    assert api.get("/subjects/a-value/versions/1").body["schema"] == C1
    assert api.get("/subjects/a-value/versions/2/schema").body == json.loads(C2)
    assert api.get("/subjects/a-value/versions/latest/referencedby").body == []


@pytest.mark.parametrize("path,status,code", [
    ("/subjects/nope/versions", 404, 40401),
    ("/subjects/nope/versions/1", 404, 40401),
    ("/subjects/nope/versions/latest", 404, 40401),
    ("/subjects/s-value/versions/7", 404, 40402),
    ("/subjects/s-value/versions/0", 422, 42202),
    ("/subjects/s-value/versions/-2", 422, 42202),
    ("/subjects/s-value/versions/one", 422, 42202),
    ("/subjects/s-value/versions/2147483648", 422, 42202),
    ("/config/s-value", 404, 40408),
    ("/no/such/path", 404, 404),
])
def test_get_errors(api, path: str, status: int, code: int) -> None:
    api.register("s-value", V1)
    ans = api.get(path)
    assert (ans.status, ans.body["error_code"]) == (status, code)
    assert isinstance(ans.body["message"], str) and ans.body["message"]


def test_error_messages_match_confluent(api) -> None:
    api.register("s-value", V1)
    assert api.get("/subjects/x/versions").body == {"error_code": 40401, "message": "Subject 'x' not found."}
    assert api.get("/subjects/s-value/versions/9").body == {"error_code": 40402, "message": "Version 9 not found."}
    assert api.get("/subjects/s-value/versions/abc").body == {
        "error_code": 42202,
        "message": "The specified version 'abc' is not a valid version id. "
                   'Allowed values are between [1, 2^31-1] and the string "latest"'}


@pytest.mark.parametrize("body,fragment", [
    ({"schema": "{bad json"}, "Invalid schema"),
    ({"schema": ""}, "Empty schema"),
    ({}, "Empty schema"),
    ({"schema": '"int"', "schemaType": "PROTOBUF"}, "AVRO"),
    ({"schema": '"int"', "schemaType": "JSON"}, "AVRO"),
    ({"schema": '"int"', "references": [{"name": "x", "subject": "y", "version": 1}]}, "references"),
])
def test_register_invalid_is_42201(api, body: dict[str, Any], fragment: str) -> None:
    ans = api.post("/subjects/s-value/versions", body)
    assert (ans.status, ans.body["error_code"]) == (422, 42201)
    assert fragment in ans.body["message"]
    assert api.get("/subjects").body == []


def test_register_with_explicit_id_needs_import_mode(api) -> None:
    ans = api.post("/subjects/s/versions", {"schema": '"int"', "id": 5})
    assert (ans.status, ans.body["error_code"]) == (422, 42205)


def test_bad_json_body_and_wrong_method(api) -> None:
    ans = api.post("/subjects/s/versions", raw="{not json")
    assert (ans.status, ans.body["error_code"]) == (400, 400)
    ans = api.call("PUT", "/subjects/s/versions")
    assert (ans.status, ans.body) == (405, {"error_code": 405, "message": "HTTP 405 Method Not Allowed"})


def test_incompatible_registration_is_409_with_details(api) -> None:
    api.register("s-value", V1)
    ans = api.register("s-value", V2_REQUIRED)
    assert ans.status == 409
    assert ans.body["error_code"] == 409
    msg = ans.body["message"]
    assert msg.startswith('Schema being registered is incompatible with an earlier schema for subject "s-value", '
                          "details: [{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE'")
    assert "{oldSchemaVersion: 1}" in msg and "compatibility: 'BACKWARD'" in msg
    assert api.get("/subjects/s-value/versions").body == [1]
    assert api.register("s-value", V2).body == {"id": 2}


def test_lookup_schema_under_subject(api) -> None:
    api.register("s-value", V1)
    api.register("s-value", V2)
    found = api.post("/subjects/s-value", {"schema": json.dumps(V1, indent=2)})
    assert (found.status, found.body) == (200, {"subject": "s-value", "version": 1, "id": 1, "schema": C1})
    other = api.post("/subjects/s-value", {"schema": '"string"'})
    assert (other.status, other.body) == (404, {"error_code": 40403, "message": "Schema not found"})
    assert api.post("/subjects/nope", {"schema": '"string"'}).body["error_code"] == 40401
    assert api.post("/subjects/s-value", {"schema": "{x"}).body["error_code"] == 42201


def test_config_global_and_per_subject(api) -> None:
    assert api.get("/config").body == {"compatibilityLevel": "BACKWARD"}
    assert api.put("/config", {"compatibility": "full"}).body == {"compatibility": "FULL"}
    assert api.get("/config").body == {"compatibilityLevel": "FULL"}
    bad = api.put("/config", {"compatibility": "SIDEWAYS"})
    assert (bad.status, bad.body["error_code"]) == (422, 42203)
    assert api.get("/config/s-value").body["error_code"] == 40408
    assert api.get("/config/s-value?defaultToGlobal=true").body == {"compatibilityLevel": "FULL"}
    assert api.put("/config/s-value", {"compatibility": "NONE"}).body == {"compatibility": "NONE"}
    assert api.get("/config/s-value").body == {"compatibilityLevel": "NONE"}
    assert api.get("/config").body == {"compatibilityLevel": "FULL"}
    assert api.delete("/config/s-value").body == {"compatibilityLevel": "NONE"}
    assert api.get("/config/s-value").body["error_code"] == 40408
    assert api.delete("/config/s-value").body["error_code"] == 40401
    assert api.delete("/config").body == {"compatibilityLevel": "FULL"}
    assert api.get("/config").body == {"compatibilityLevel": "BACKWARD"}


def test_subject_config_overrides_global_for_registration(api) -> None:
    api.register("s-value", V1)
    api.register("t-value", V1)
    api.put("/config", {"compatibility": "NONE"})
    api.put("/config/s-value", {"compatibility": "BACKWARD"})
    assert api.register("s-value", V2_REQUIRED).status == 409  # subject level wins
    assert api.register("t-value", V2_REQUIRED).body == {"id": 2}  # global NONE applies
    api.delete("/config/s-value")
    assert api.register("s-value", V2_REQUIRED).body == {"id": 2}


def test_compatibility_endpoint(api) -> None:
    api.register("s-value", V1)
    path = "/compatibility/subjects/s-value/versions"
    assert api.post(f"{path}/latest", {"schema": json.dumps(V2)}).body == {"is_compatible": True}
    assert api.post(f"{path}/1", {"schema": json.dumps(V2_REQUIRED)}).body == {"is_compatible": False}
    assert api.post(path, {"schema": json.dumps(V2_REQUIRED)}).body == {"is_compatible": False}
    verbose = api.post(f"{path}/latest?verbose=true", {"schema": json.dumps(V2_REQUIRED)}).body
    assert verbose["is_compatible"] is False
    assert verbose["messages"][0].startswith("{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE'")
    assert api.post(f"{path}/7", {"schema": '"int"'}).body["error_code"] == 40402
    assert api.post(f"{path}/x", {"schema": '"int"'}).body["error_code"] == 42202
    assert api.post(f"{path}/latest", {"schema": "{x"}).body["error_code"] == 42201
    assert api.post("/compatibility/subjects/new-subject/versions/1", {"schema": '"int"'}).body["error_code"] == 40401
    # nothing registered yet: anything is compatible with "latest"
    assert api.post("/compatibility/subjects/new-subject/versions/latest", {"schema": '"int"'}).body == {"is_compatible": True}
    api.put("/config/s-value", {"compatibility": "NONE"})
    assert api.post(f"{path}/latest", {"schema": json.dumps(V2_REQUIRED)}).body == {"is_compatible": True}


def test_soft_and_permanent_subject_delete(api) -> None:
    api.register("s-value", V1)
    api.register("s-value", V2)
    api.put("/config/s-value", {"compatibility": "FULL"})
    assert api.delete("/subjects/s-value?permanent=true").body["error_code"] == 40405
    assert api.delete("/subjects/s-value").body == [1, 2]
    assert api.get("/subjects").body == []
    assert api.get("/subjects?deleted=true").body == ["s-value"]
    assert api.get("/subjects?deletedOnly=true").body == ["s-value"]
    assert api.get("/subjects/s-value/versions").body["error_code"] == 40401
    assert api.get("/subjects/s-value/versions?deleted=true").body == [1, 2]
    assert api.get("/subjects/s-value/versions/1?deleted=true").body["id"] == 1
    assert api.get("/config/s-value").body["error_code"] == 40408  # soft delete drops the subject config
    # readers of old data still resolve the ids
    assert api.get("/schemas/ids/1").body == {"schema": C1}
    assert api.get("/schemas/ids/1/versions").body == []
    assert api.get("/schemas/ids/1/versions?deleted=true").body == [{"subject": "s-value", "version": 1}]
    assert api.delete("/subjects/s-value").body["error_code"] == 40404
    assert api.delete("/subjects/s-value?permanent=true").body == [1, 2]
    assert api.get("/schemas/ids/1").body["error_code"] == 40403
    assert api.get("/subjects?deleted=true").body == []
    assert api.delete("/subjects/s-value").body["error_code"] == 40401


def test_reregister_after_soft_delete_keeps_id_with_new_version(api) -> None:
    api.register("s-value", V1)
    api.delete("/subjects/s-value")
    # compatibility only looks at live versions: an incompatible schema is accepted now
    assert api.register("s-value", {"type": "string"}).body == {"id": 2}
    assert api.register("s-value", V1).status == 409  # "string" is live now and V1 cannot read it
    api.put("/config/s-value", {"compatibility": "NONE"})
    assert api.register("s-value", V1).body == {"id": 1}
    assert api.get("/subjects/s-value/versions").body == [2, 3]
    # the soft-deleted version 1 with the same id was replaced
    assert api.get("/subjects/s-value/versions?deleted=true").body == [2, 3]


def test_version_delete(api) -> None:
    api.register("s-value", V1)
    api.register("s-value", V2)
    assert api.delete("/subjects/s-value/versions/1?permanent=true").body["error_code"] == 40407
    assert api.delete("/subjects/s-value/versions/latest").body == 2
    assert api.get("/subjects/s-value/versions").body == [1]
    assert api.delete("/subjects/s-value/versions/2").body["error_code"] == 40406
    assert api.delete("/subjects/s-value/versions/2?permanent=true").body == 2
    assert api.get("/subjects/s-value/versions?deleted=true").body == [1]
    assert api.get("/schemas/ids/2").body["error_code"] == 40403
    assert api.delete("/subjects/s-value/versions/9").body["error_code"] == 40402


def test_subject_names_are_url_decoded(api) -> None:
    subject = "team/a value:ü"
    assert api.register(quote(subject, safe=""), V1).body == {"id": 1}
    assert api.get("/subjects").body == [subject]
    assert api.get(f"/subjects/{quote(subject, safe='')}/versions/1").body["subject"] == subject


def test_mode_is_readwrite(api) -> None:
    assert api.get("/mode").body == {"mode": "READWRITE"}


def test_keep_alive_and_no_nagle_delay(running) -> None:
    """100 GETs on one connection: with Nagle's delayed-ACK stall each would take ~40 ms (4 s total)."""
    running.api.register("s-value", V1)
    host, port = running.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=5)
    t0 = time.perf_counter()
    for _ in range(100):
        conn.request("GET", "/schemas/ids/1", headers={"Accept": CT})
        resp = conn.getresponse()
        assert resp.status == 200
        assert json.loads(resp.read()) == {"schema": C1}
    elapsed_s = time.perf_counter() - t0
    conn.close()
    assert elapsed_s < 1.5, f"100 keep-alive GETs took {elapsed_s:.2f}s"


def test_every_write_is_one_confluent_record(running) -> None:
    api = running.api
    api.register("s-value", V1)
    api.put("/config", {"compatibility": "FULL"})
    api.put("/config/s-value", {"compatibility": "NONE"})
    api.delete("/subjects/s-value")
    assert running.store.log == [
        ({"keytype": "SCHEMA", "subject": "s-value", "version": 1, "magic": 1},
         {"subject": "s-value", "version": 1, "id": 1, "schema": C1, "deleted": False}),
        ({"keytype": "CONFIG", "magic": 0}, {"compatibilityLevel": "FULL"}),
        ({"keytype": "CONFIG", "subject": "s-value", "magic": 0}, {"subject": "s-value", "compatibilityLevel": "NONE"}),
        ({"keytype": "DELETE_SUBJECT", "subject": "s-value", "magic": 0}, {"subject": "s-value", "version": 1}),
        ({"keytype": "CONFIG", "subject": "s-value", "magic": 0}, None),
    ]
