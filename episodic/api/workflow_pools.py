"""Workflow pools over HTTP (one class per operation): a workflow run's shared context, one JSON document
per pool type, created on first write and shared by all of the owner's agents (the run's nodes). Written
with optimistic concurrency like memory pools (episodic/api/pools.py)."""

from __future__ import annotations

from typing import Any, ClassVar

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from episodic.api.common import keyed_list_response, serialized
from episodic.api.pools import MAX_ID_LENGTH, WRITE_ERRORS, MergeInput, WriteInput
from episodic.models import WorkflowPool
from episodic.selectors import pools as selectors
from episodic.services import pools as services
from memory_site.api.authentication import HasApiKey, request_owner
from memory_site.api.fields import StrictCharField
from memory_site.api.lists import ListOutput
from memory_site.api.schema import ERROR_RESPONSES

MESSAGE_WORKFLOW_POOL_NOT_FOUND = "Workflow pool not found."
MESSAGE_WORKFLOW_RUN_NOT_FOUND = "This workflow run has no pools."


class WorkflowPoolOutput(serializers.ModelSerializer):
    run_id = StrictCharField(source="workflow_run_id")

    class Meta:
        model = WorkflowPool
        fields = ["run_id", "pool_type", "data", "version", "expires_at", "created_at", "updated_at"]


class RunAddress(serializers.Serializer):
    """The path's run id and pool type, checked like body fields (the URL bounds neither)."""

    run_id = StrictCharField(max_length=MAX_ID_LENGTH, trim_whitespace=False)
    pool_type = serializers.ChoiceField(choices=WorkflowPool.Type.choices, required=False)

    @classmethod
    def checked(cls, run_id: str, pool_type: str | None = None) -> dict[str, Any]:
        address = cls(data={"run_id": run_id} if pool_type is None else {"run_id": run_id, "pool_type": pool_type})
        address.is_valid(raise_exception=True)
        return dict(address.validated_data)


_POOL_TYPE = OpenApiParameter("pool_type", str, OpenApiParameter.PATH, enum=WorkflowPool.Type.values)


class WorkflowPoolApi(APIView):
    permission_classes = [HasApiKey]
    not_found_message: ClassVar[str] = MESSAGE_WORKFLOW_POOL_NOT_FOUND

    def owner_id(self) -> int:
        return request_owner(self.request).pk


class WorkflowRunApi(WorkflowPoolApi):
    class OutputSerializer(ListOutput):
        run_id = StrictCharField()
        results = WorkflowPoolOutput(many=True)

    @extend_schema(
        operation_id="workflow_pools_list",
        summary="All pools of a workflow run (not counted as reads)",
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request, run_id: str) -> Response:
        run_id = RunAddress.checked(run_id)["run_id"]
        found = selectors.workflow_run_pools(owner_id=self.owner_id(), run_id=run_id)
        if not found:
            raise NotFound(MESSAGE_WORKFLOW_RUN_NOT_FOUND)
        return keyed_list_response(request, serialized(WorkflowPoolOutput, found), run_id=run_id)


class WorkflowPoolReadApi(WorkflowPoolApi):
    @extend_schema(
        operation_id="workflow_pools_read",
        summary="Read a workflow run's pool (counts a read)",
        parameters=[_POOL_TYPE],
        responses={200: WorkflowPoolOutput, **ERROR_RESPONSES},
    )
    def get(self, request: Request, run_id: str, pool_type: str) -> Response:
        pool = services.workflow_pool_read(owner_id=self.owner_id(), **RunAddress.checked(run_id, pool_type))
        if pool is None:
            raise NotFound(MESSAGE_WORKFLOW_POOL_NOT_FOUND)
        return Response(WorkflowPoolOutput(pool).data)


class WorkflowPoolWriteApi(WorkflowPoolApi):
    @extend_schema(
        operation_id="workflow_pools_write",
        summary="Replace a workflow run's pool (created on first write)",
        parameters=[_POOL_TYPE],
        request=WriteInput,
        responses={200: WorkflowPoolOutput, **WRITE_ERRORS},
    )
    def put(self, request: Request, run_id: str, pool_type: str) -> Response:
        address = RunAddress.checked(run_id, pool_type)
        data = WriteInput(data=request.data)
        data.is_valid(raise_exception=True)
        pool = services.workflow_pool_write(
            owner_id=self.owner_id(),
            **address,
            data=data.validated_data["data"],
            expected_version=data.validated_data.get("version"),
        )
        return Response(WorkflowPoolOutput(pool).data)


class WorkflowPoolMergeApi(WorkflowPoolApi):
    @extend_schema(
        operation_id="workflow_pools_merge",
        summary="Merge a patch into a workflow run's pool (created on first write)",
        parameters=[_POOL_TYPE],
        request=MergeInput,
        responses={200: WorkflowPoolOutput, **WRITE_ERRORS},
    )
    def patch(self, request: Request, run_id: str, pool_type: str) -> Response:
        address = RunAddress.checked(run_id, pool_type)
        data = MergeInput(data=request.data)
        data.is_valid(raise_exception=True)
        pool = services.workflow_pool_merge(
            owner_id=self.owner_id(),
            **address,
            patch=data.validated_data["data"],
            expected_version=data.validated_data.get("version"),
        )
        return Response(WorkflowPoolOutput(pool).data)


class WorkflowPoolDeleteApi(WorkflowPoolApi):
    @extend_schema(
        operation_id="workflow_pools_delete",
        summary="Delete a workflow run's pool",
        parameters=[_POOL_TYPE],
        responses={204: None, **ERROR_RESPONSES},
    )
    def delete(self, request: Request, run_id: str, pool_type: str) -> Response:
        pool = selectors.workflow_pool_get(owner_id=self.owner_id(), **RunAddress.checked(run_id, pool_type))
        if pool is None:
            raise NotFound(MESSAGE_WORKFLOW_POOL_NOT_FOUND)
        services.workflow_pool_delete(pool=pool)
        return Response(status=status.HTTP_204_NO_CONTENT)
