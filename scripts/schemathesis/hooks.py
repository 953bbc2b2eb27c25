"""Schemathesis hooks of `npm run schemathesis`: positive cases of the company-scoped AI-run
operations name the seeded company (SCHEMATHESIS_COMPANY_ID), so they get past 404 NOT_FOUND.
Negative cases are left as generated."""
import os

import schemathesis
from schemathesis.core.parameters import ParameterLocation

COMPANY_ID = os.environ.get("SCHEMATHESIS_COMPANY_ID")


def _positive(case, location):
    meta = getattr(case, "meta", None)
    return meta is None or not meta.is_negative_at(location)


@schemathesis.hook
def map_case(context, case):
    if not COMPANY_ID:
        return case
    if isinstance(case.path_parameters, dict) and "companyId" in case.path_parameters and _positive(case, ParameterLocation.PATH):
        case.path_parameters["companyId"] = COMPANY_ID
    if case.operation.path == "/api/v1/ai-runs" and isinstance(case.body, dict) and "companyId" in case.body and _positive(case, ParameterLocation.BODY):
        case.body["companyId"] = COMPANY_ID
    return case
