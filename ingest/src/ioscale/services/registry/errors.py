"""Registry errors with Confluent's HTTP statuses, error codes and message texts.

A Confluent client reads ``error_code`` (not the HTTP status) to tell "subject not found" from
"version not found", so the codes and wording follow Confluent's ``rest/exceptions/Errors.java``.
"""

from __future__ import annotations

# HTTP 404
SUBJECT_NOT_FOUND = 40401
VERSION_NOT_FOUND = 40402
SCHEMA_NOT_FOUND = 40403
SUBJECT_SOFT_DELETED = 40404
SUBJECT_NOT_SOFT_DELETED = 40405
SCHEMAVERSION_SOFT_DELETED = 40406
SCHEMAVERSION_NOT_SOFT_DELETED = 40407
SUBJECT_COMPATIBILITY_NOT_CONFIGURED = 40408
# HTTP 409. Confluent 5.x-7.x send error_code 409; 8.x sends 40901. Clients key on the HTTP status.
INCOMPATIBLE_SCHEMA = 409
# HTTP 422
INVALID_SCHEMA = 42201
INVALID_VERSION = 42202
INVALID_COMPATIBILITY_LEVEL = 42203
OPERATION_NOT_PERMITTED = 42205
INVALID_SUBJECT = 42208
SCHEMA_TOO_LARGE = 42209
# HTTP 500
STORE_ERROR = 50001


class RegistryError(Exception):
    """An error answered as ``{"error_code": code, "message": message}`` with HTTP ``status``."""

    def __init__(self, status: int, error_code: int, message: str):
        super().__init__(message)
        self.status = status
        self.error_code = error_code
        self.message = message

    def body(self) -> dict[str, object]:
        return {"error_code": self.error_code, "message": self.message}


class InvalidSchemaError(RegistryError):
    def __init__(self, message: str):
        super().__init__(422, INVALID_SCHEMA, message)


class StoreError(RegistryError):
    """The backing store (Kafka) failed; nothing was answered as written."""

    def __init__(self, message: str):
        super().__init__(500, STORE_ERROR, message)


def subject_not_found(subject: str) -> RegistryError:
    return RegistryError(404, SUBJECT_NOT_FOUND, f"Subject '{subject}' not found.")


def version_not_found(version: int) -> RegistryError:
    return RegistryError(404, VERSION_NOT_FOUND, f"Version {version} not found.")


def schema_not_found(schema_id: int | None = None) -> RegistryError:
    if schema_id is None:
        return RegistryError(404, SCHEMA_NOT_FOUND, "Schema not found")
    return RegistryError(404, SCHEMA_NOT_FOUND, f"Schema {schema_id} not found")


def subject_soft_deleted(subject: str) -> RegistryError:
    # Confluent's text has no space after the period; kept verbatim.
    return RegistryError(
        404, SUBJECT_SOFT_DELETED, f"Subject '{subject}' was soft deleted.Set permanent=true to delete permanently"
    )


def subject_not_soft_deleted(subject: str) -> RegistryError:
    return RegistryError(
        404, SUBJECT_NOT_SOFT_DELETED, f"Subject '{subject}' was not deleted first before being permanently deleted"
    )


def version_soft_deleted(subject: str, version: str) -> RegistryError:
    return RegistryError(
        404,
        SCHEMAVERSION_SOFT_DELETED,
        f"Subject '{subject}' Version {version} was soft deleted.Set permanent=true to delete permanently",
    )


def version_not_soft_deleted(subject: str, version: str) -> RegistryError:
    return RegistryError(
        404,
        SCHEMAVERSION_NOT_SOFT_DELETED,
        f"Subject '{subject}' Version {version} was not deleted first before being permanently deleted",
    )


def compatibility_not_configured(subject: str) -> RegistryError:
    return RegistryError(
        404,
        SUBJECT_COMPATIBILITY_NOT_CONFIGURED,
        f"Subject '{subject}' does not have subject-level compatibility configured",
    )


def invalid_version(version: str) -> RegistryError:
    return RegistryError(
        422,
        INVALID_VERSION,
        f"The specified version '{version}' is not a valid version id. "
        'Allowed values are between [1, 2^31-1] and the string "latest"',
    )


def invalid_compatibility_level() -> RegistryError:
    return RegistryError(
        422,
        INVALID_COMPATIBILITY_LEVEL,
        "Invalid compatibility level. Valid values are none, backward, forward, full, "
        "backward_transitive, forward_transitive, and full_transitive",
    )


def invalid_subject(subject: str) -> RegistryError:
    return RegistryError(422, INVALID_SUBJECT, f"The specified subject is not a valid subject: {subject!r}")


def incompatible(subject: str, messages: list[str]) -> RegistryError:
    # Java's List.toString: "[a, b]"
    details = "[" + ", ".join(messages) + "]"
    return RegistryError(
        409,
        INCOMPATIBLE_SCHEMA,
        f'Schema being registered is incompatible with an earlier schema for subject "{subject}", details: {details}',
    )
