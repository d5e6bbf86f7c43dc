"""The registry's operations, free of HTTP: what each Confluent REST call does and answers.

Behaviour follows Confluent's ``KafkaSchemaRegistry`` and its REST resources:

- register: a schema already live under the subject returns its id; otherwise it must pass the
  subject's compatibility level (subject config, else global, else BACKWARD) against the live
  versions, then gets the id of the same canonical schema anywhere in the registry, or a new one
  (max id + 1), and version = highest version ever used in the subject + 1;
- soft delete keeps the ids readable (``GET /schemas/ids/{id}``); permanent delete needs a soft
  delete first;
- AVRO only; schema references, normalisation and modes are not implemented (see ``server.py``).
"""

from __future__ import annotations

import re
from typing import Any

from ioscale.services.registry import errors
from ioscale.services.registry.canonical import ParsedSchema, parse_schema
from ioscale.services.registry.compat import DEFAULT_LEVEL, LEVELS, PreviousSchema, check_compatibility
from ioscale.services.registry.errors import InvalidSchemaError, RegistryError
from ioscale.services.registry.store import SchemaStore, SchemaValue

LATEST = -1
_VERSION = re.compile(r"[+-]?\d+")


def parse_version(text: str) -> int:
    """Confluent's ``VersionId``: "latest" (or -1) -> LATEST, else an int in [1, 2^31-1]."""
    stripped = text.strip()
    if stripped.lower() == "latest":
        return LATEST
    if not _VERSION.fullmatch(stripped):
        raise errors.invalid_version(text)
    version = int(stripped)
    if not -(2**31) <= version < 2**31 or (version <= 0 and version != LATEST):
        raise errors.invalid_version(text)
    return version


def schema_entity(sv: SchemaValue) -> dict[str, Any]:
    # Confluent's Schema entity: schemaType and references are omitted for AVRO without references.
    return {"subject": sv.subject, "version": sv.version, "id": sv.id, "schema": sv.schema}


class Registry:
    def __init__(self, store: SchemaStore, default_level: str = DEFAULT_LEVEL):
        if default_level not in LEVELS:
            raise ValueError(f"unknown compatibility level {default_level}; choose from {', '.join(LEVELS)}")
        self.store = store
        self.default_level = default_level

    @property
    def state(self):
        return self.store.state

    # -- helpers ------------------------------------------------------------------------------------
    def level_for(self, subject: str | None) -> str:
        state = self.state
        return (subject is not None and state.config(subject)) or state.config(None) or self.default_level

    @staticmethod
    def parse_request(body: Any) -> ParsedSchema:
        if not isinstance(body, dict):
            raise InvalidSchemaError("Request body must be a JSON object with a \"schema\" string")
        schema_type = body.get("schemaType")
        if schema_type is not None and schema_type != "AVRO":
            raise InvalidSchemaError(
                f"Invalid schema type {schema_type}: this registry (ioscale) serves AVRO schemas only")
        if body.get("references"):
            raise InvalidSchemaError(
                "Schema references are not supported by this registry (ioscale); inline the referenced types")
        return parse_schema(body.get("schema"))

    @staticmethod
    def check_subject(subject: str) -> None:
        if not subject or any(ord(c) < 0x20 or ord(c) == 0x7F for c in subject):
            raise errors.invalid_subject(subject)

    def _previous(self, subject: str, live: list[SchemaValue], level: str) -> list[PreviousSchema]:
        # Non-transitive levels look at the latest version only: parse no more than needed.
        chosen = live if level.endswith("_TRANSITIVE") else live[-1:]
        out = []
        for sv in chosen:
            try:
                out.append(PreviousSchema(parse_schema(sv.schema), sv.version))
            except InvalidSchemaError as e:
                raise RegistryError(
                    500, 500, f"stored schema {sv.subject} version {sv.version} cannot be parsed: {e.message}"
                ) from None
        return out

    # -- subjects and versions ----------------------------------------------------------------------
    def register(self, subject: str, body: Any) -> dict[str, Any]:
        self.check_subject(subject)
        parsed = self.parse_request(body)
        if _int_field(body, "id", -1) >= 0 or _int_field(body, "version", 0) > 0:
            # Explicit ids/versions are Confluent's IMPORT mode, which this registry does not offer.
            raise RegistryError(422, errors.OPERATION_NOT_PERMITTED, f"Subject {subject} is not in import mode")
        with self.store.writing() as state:
            versions = state.versions(subject)
            for sv in reversed(versions):
                if sv.schema == parsed.canonical and not sv.deleted:
                    return {"id": sv.id}
            live = [sv for sv in versions if not sv.deleted]
            level = self.level_for(subject)
            messages = check_compatibility(level, parsed, self._previous(subject, live, level))
            if messages:
                raise errors.incompatible(subject, messages)
            existing = state.id_for_schema(parsed.canonical)
            schema_id = existing if existing is not None else state.next_id()
            version = max((sv.version for sv in versions), default=0) + 1
            self.store.put_schema(SchemaValue(subject, version, schema_id, parsed.canonical))
            for sv in versions:
                # Confluent: a re-registered schema replaces its soft-deleted earlier versions.
                if sv.deleted and sv.id == schema_id:
                    self.store.tombstone_schema(subject, sv.version)
            return {"id": schema_id}

    def lookup(self, subject: str, body: Any, deleted: bool = False) -> dict[str, Any]:
        versions = self.state.versions(subject)
        if not any(deleted or not sv.deleted for sv in versions):
            raise errors.subject_not_found(subject)
        parsed = self.parse_request(body)
        for sv in reversed(versions):
            if sv.schema == parsed.canonical and (deleted or not sv.deleted):
                return schema_entity(sv)
        raise errors.schema_not_found()

    def subjects(self, deleted: bool = False, deleted_only: bool = False, prefix: str | None = None) -> list[str]:
        if deleted_only:
            live = set(self.state.subjects(False))
            names = [s for s in self.state.subjects(True) if s not in live]
        else:
            names = self.state.subjects(deleted)
        return [s for s in names if prefix is None or s.startswith(prefix)]

    def _visible(self, subject: str, deleted: bool, deleted_only: bool = False) -> list[SchemaValue]:
        versions = self.state.versions(subject)
        if deleted_only:
            return [sv for sv in versions if sv.deleted]
        return [sv for sv in versions if deleted or not sv.deleted]

    def versions(self, subject: str, deleted: bool = False, deleted_only: bool = False) -> list[int]:
        if not self._visible(subject, deleted or deleted_only):
            raise errors.subject_not_found(subject)
        return [sv.version for sv in self._visible(subject, deleted, deleted_only)]

    def _find(self, subject: str, version_text: str, deleted: bool) -> SchemaValue:
        version = parse_version(version_text)
        versions = self.state.versions(subject)
        if version == LATEST:
            live = [sv for sv in versions if not sv.deleted]  # "latest" never means a deleted version
            found = live[-1] if live else None
        else:
            found = next((sv for sv in versions if sv.version == version and (deleted or not sv.deleted)), None)
        if found is None:
            if not any(deleted or not sv.deleted for sv in versions):
                raise errors.subject_not_found(subject)
            raise errors.version_not_found(version)
        return found

    def version(self, subject: str, version_text: str, deleted: bool = False) -> dict[str, Any]:
        return schema_entity(self._find(subject, version_text, deleted))

    def version_schema(self, subject: str, version_text: str, deleted: bool = False) -> str:
        return self._find(subject, version_text, deleted).schema

    def referenced_by(self, subject: str, version_text: str) -> list[int]:
        self._find(subject, version_text, True)
        return []  # no references in this registry

    def delete_subject(self, subject: str, permanent: bool = False) -> list[int]:
        with self.store.writing() as state:
            versions = state.versions(subject)
            if not versions:
                raise errors.subject_not_found(subject)
            live = [sv for sv in versions if not sv.deleted]
            if not permanent:
                if not live:
                    raise errors.subject_soft_deleted(subject)
                self.store.delete_subject(subject, live[-1].version)
                if state.config(subject) is not None:
                    self.store.delete_config(subject)
                return [sv.version for sv in live]
            if live:
                raise errors.subject_not_soft_deleted(subject)
            for sv in versions:
                self.store.tombstone_schema(subject, sv.version)
            return [sv.version for sv in versions]

    def delete_version(self, subject: str, version_text: str, permanent: bool = False) -> int:
        with self.store.writing() as state:
            version = parse_version(version_text)
            if version != LATEST:
                existing = state.get(subject, version)
                if existing is not None and existing.deleted and not permanent:
                    raise errors.version_soft_deleted(subject, version_text)
            sv = self._find(subject, version_text, deleted=True)
            if permanent:
                if not sv.deleted:
                    raise errors.version_not_soft_deleted(subject, version_text)
                self.store.tombstone_schema(subject, sv.version)
            else:
                self.store.put_schema(SchemaValue(sv.subject, sv.version, sv.id, sv.schema, True))
                if not any(not v.deleted for v in state.versions(subject)) and state.config(subject):
                    self.store.delete_config(subject)
            return sv.version

    # -- schemas by id ------------------------------------------------------------------------------
    def schema_by_id(self, schema_id: int, fetch_max_id: bool = False) -> dict[str, Any]:
        schema = self.state.schema_for_id(schema_id)
        if schema is None:
            raise errors.schema_not_found(schema_id)
        if fetch_max_id:
            return {"schema": schema, "maxId": self.state.max_id}
        return {"schema": schema}

    def schema_text_by_id(self, schema_id: int) -> str:
        return self.schema_by_id(schema_id)["schema"]

    def versions_by_id(self, schema_id: int, deleted: bool = False) -> list[dict[str, Any]]:
        keys = self.state.keys_for_id(schema_id)
        if not keys:
            raise errors.schema_not_found(schema_id)
        out = []
        for subject, version in keys:
            sv = self.state.get(subject, version)
            if sv is not None and (deleted or not sv.deleted):
                out.append({"subject": subject, "version": version})
        return out

    def subjects_by_id(self, schema_id: int, deleted: bool = False) -> list[str]:
        return list(dict.fromkeys(v["subject"] for v in self.versions_by_id(schema_id, deleted)))

    # -- compatibility ------------------------------------------------------------------------------
    def test_compatibility(self, subject: str, version_text: str | None, body: Any,
                           verbose: bool = False) -> dict[str, Any]:
        """POST /compatibility/subjects/{s}/versions[/{v}]: would ``body`` pass the subject's level?

        "latest" and the version-less form check against the live versions (the latest, or all of
        them for transitive levels); with no live version the answer is compatible. A numbered
        version checks against that version only.
        """
        if version_text is None or parse_version(version_text) == LATEST:
            previous = [sv for sv in self.state.versions(subject) if not sv.deleted]
        else:
            previous = [self._find(subject, version_text, deleted=False)]
        parsed = self.parse_request(body)
        level = self.level_for(subject)
        messages = check_compatibility(level, parsed, self._previous(subject, previous, level))
        answer: dict[str, Any] = {"is_compatible": not messages}
        if verbose and messages:
            answer["messages"] = messages
        return answer

    # -- configuration ------------------------------------------------------------------------------
    def get_config(self, subject: str | None, default_to_global: bool = False) -> dict[str, Any]:
        if subject is None:
            return {"compatibilityLevel": self.level_for(None)}
        level = self.state.config(subject)
        if level is None:
            if not default_to_global:
                raise errors.compatibility_not_configured(subject)
            level = self.level_for(None)
        return {"compatibilityLevel": level}

    def set_config(self, subject: str | None, body: Any) -> dict[str, Any]:
        raw = body.get("compatibility") if isinstance(body, dict) else None
        if raw is None and isinstance(body, dict):
            raw = body.get("compatibilityLevel")  # Confluent's GET answer shape, accepted too
        level = raw.upper() if isinstance(raw, str) else None
        if level not in LEVELS:
            raise errors.invalid_compatibility_level()
        if subject is not None:
            self.check_subject(subject)
        with self.store.writing():
            self.store.put_config(subject, level)
        return {"compatibility": level}

    def delete_config(self, subject: str | None) -> dict[str, Any]:
        with self.store.writing() as state:
            if subject is None:
                previous = self.level_for(None)
                if state.config(None) is not None:
                    self.store.delete_config(None)
                return {"compatibilityLevel": previous}
            level = state.config(subject)
            if level is None:
                raise errors.subject_not_found(subject)
            self.store.delete_config(subject)
            return {"compatibilityLevel": level}


def _int_field(body: dict[str, Any], name: str, default: int) -> int:
    value = body.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise RegistryError(422, 422, f"{name} must be an integer")
    return value
