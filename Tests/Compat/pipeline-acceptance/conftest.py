"""Local pytest shim for google-cloud-firestore 2.34.1's pipeline tests, run against
`hearth serve` by Tests/Compat/pipeline-acceptance.sh. The upstream test files are used
unchanged; this file is copied next to them. It:

1. lifts the skips that say the emulator cannot run pipelines (test_pipeline_acceptance.py's
   module mark, and test_system.py's pipeline tests), so those run against Hearth;
2. turns the pipeline cross-check ON: test_system.py's `verify_pipeline` skips itself when
   FIRESTORE_EMULATOR is true, so that module flag is set to False while each test runs
   (the skip marks were already decided at collection, with the real value);
3. runs test_pipeline_w_read_time last (see below), and keeps, of test_system.py / test_system_async.py, only the tests that cross-check a query
   as a pipeline or that exercise pipelines themselves (the rest run in system-tests.sh);
4. seeds the vector-search documents those tests expect (as util/bootstrap_vector_index.py
   does in production), and lifts the same "needs an index and seed data" skip.
"""
import os

import pytest

UNSKIP_REASONS = [
    "Pipeline tests are currently not supported by emulator",
    "Pipeline query not supported in emulator",
    "Require index and seed data",
]
# Query-profile tests are lifted only when they are pipeline tests or cross-check a query
# as a pipeline (test_query_stream_or_get_w_no_explain_options asks for no profile).
PIPELINE_ONLY_REASONS = ["Query profile not supported in emulator"]
SYSTEM_MODULES = ("test_system.py", "test_system_async.py")


def _lift(node, item_is_pipeline):
    for mark in list(node.own_markers):
        if mark.name != "skipif":
            continue
        reason = mark.kwargs.get("reason", "")
        if any(r in reason for r in UNSKIP_REASONS) or (
            item_is_pipeline and any(r in reason for r in PIPELINE_ONLY_REASONS)
        ):
            node.own_markers.remove(mark)


def pytest_collection_modifyitems(config, items):
    kept, dropped = [], []
    for item in items:
        is_pipeline = "pipeline" in item.name
        cross_checks = "verify_pipeline" in getattr(item, "fixturenames", ())
        for node in item.listchain():
            _lift(node, is_pipeline or cross_checks)
        if item.fspath.basename in SYSTEM_MODULES:
            if "verify_pipeline" not in getattr(item, "fixturenames", ()) and not is_pipeline:
                dropped.append(item)
                continue
        kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    # test_pipeline_w_read_time adds a document to the module's shared `query_docs` record
    # (and deletes it afterwards), which later tests count: pytest's grouping by database
    # would run it before them once it is un-skipped, so it runs last.
    kept.sort(key=lambda item: "test_pipeline_w_read_time" in item.name)
    items[:] = kept


@pytest.fixture(autouse=True)
def _pipeline_cross_check_on(request, monkeypatch):
    module = request.module
    if hasattr(module, "FIRESTORE_EMULATOR"):
        monkeypatch.setattr(module, "FIRESTORE_EMULATOR", False)
    yield


@pytest.fixture(scope="session", autouse=True)
def _vector_search_seed():
    if not os.environ.get("FIRESTORE_EMULATOR_HOST"):
        yield
        return
    from google.cloud import firestore_v1 as firestore
    from google.cloud.firestore_v1.vector import Vector
    from test__helpers import EMULATOR_CREDS, FIRESTORE_PROJECT, TEST_DATABASES_W_ENTERPRISE

    for database in TEST_DATABASES_W_ENTERPRISE:
        client = firestore.Client(project=FIRESTORE_PROJECT, credentials=EMULATOR_CREDS, database=database)
        collection = client.collection("vector_search")
        collection.document("doc1").set({"embedding": Vector([1.0, 2.0, 3.0]), "color": "red"})
        collection.document("doc2").set({"embedding": Vector([2.0, 2.0, 3.0]), "color": "red"})
        collection.document("doc3").set({"embedding": Vector([3.0, 4.0, 5.0]), "color": "yellow"})
    yield
