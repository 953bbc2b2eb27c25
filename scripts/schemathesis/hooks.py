"""Schemathesis hooks of `npm run schemathesis`: positive cases of the company-scoped AI-run
operations name the seeded company (SCHEMATHESIS_COMPANY_ID), so they get past 404 NOT_FOUND, and
every other positive case with an `aiRunId` or `taskId` path parameter names one of the seeded runs
or Tasks (SCHEMATHESIS_AI_RUN_IDS, SCHEMATHESIS_TASK_IDS, comma-separated; scripts/schemathesis/
stack.ts), the rest keep their generated (unknown) ids. Negative cases, stateful steps (their ids
come from the OpenAPI links) and cases drawn from captured resources are left as they are."""
import itertools
import os

import schemathesis
from schemathesis.core.parameters import ParameterLocation

COMPANY_ID = os.environ.get("SCHEMATHESIS_COMPANY_ID")
SEEDED = {
    "aiRunId": [v for v in os.environ.get("SCHEMATHESIS_AI_RUN_IDS", "").split(",") if v],
    "taskId": [v for v in os.environ.get("SCHEMATHESIS_TASK_IDS", "").split(",") if v],
}
# Deterministic under a fixed seed (workers = 1): the n-th positive case of a parameter.
_COUNTERS = {name: itertools.count() for name in SEEDED}


def _positive(case, location):
    meta = getattr(case, "meta", None)
    return meta is None or not meta.is_negative_at(location)


@schemathesis.hook
def map_case(context, case):
    path_params = case.path_parameters if isinstance(case.path_parameters, dict) else None
    positive_path = path_params is not None and _positive(case, ParameterLocation.PATH)
    if COMPANY_ID:
        if positive_path and "companyId" in path_params:
            path_params["companyId"] = COMPANY_ID
        if case.operation.path == "/api/v1/ai-runs" and isinstance(case.body, dict) and "companyId" in case.body and _positive(case, ParameterLocation.BODY):
            case.body["companyId"] = COMPANY_ID
    meta = getattr(case, "meta", None)
    linked = meta is not None and (str(meta.phase.name) == "stateful" or bool(getattr(meta, "pool_draws", ())))
    if positive_path and not linked:
        for name, ids in SEEDED.items():
            if ids and name in path_params:
                n = next(_COUNTERS[name])
                if n % 2 == 0:
                    path_params[name] = ids[(n // 2) % len(ids)]
    return case
