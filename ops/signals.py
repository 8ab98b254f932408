"""Celery signal receivers: every task run becomes a JobRun row (visible in the admin).

Bookkeeping must never change a job's outcome, so a database error here is logged and swallowed:
the job's own result and retries stay Celery's business.
"""

from __future__ import annotations

import logging
import traceback
from typing import Any

from celery import signals
from django.db import DatabaseError

from ops import services
from ops.models import JobRun

logger = logging.getLogger(__name__)

_STATUS_BY_STATE = {
    "SUCCESS": JobRun.Status.SUCCEEDED,
    "FAILURE": JobRun.Status.FAILED,
    "RETRY": JobRun.Status.RETRYING,
}


@signals.task_prerun.connect
def _record_start(task_id: str, task: Any, args: Any = None, kwargs: Any = None, **_: Any) -> None:
    try:
        services.job_run_started(
            task_id=task_id, name=task.name, args=args, kwargs=kwargs, hostname=str(task.request.hostname or "")
        )
    except DatabaseError:
        logger.exception("could not record the start of job %s", task_id)


@signals.task_postrun.connect
def _record_end(task_id: str, retval: Any = None, state: str | None = None, **_: Any) -> None:
    status = _STATUS_BY_STATE.get(state or "", JobRun.Status.FAILED)
    error = ""
    if status == JobRun.Status.FAILED and isinstance(retval, BaseException):
        error = "".join(traceback.format_exception(retval))
    try:
        services.job_run_finished(task_id=task_id, status=status, result=retval, error=error)
    except DatabaseError:
        logger.exception("could not record the end of job %s", task_id)
