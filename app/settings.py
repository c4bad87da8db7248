"""Configuration, read once from the environment."""

import ipaddress
from functools import lru_cache
from typing import Annotated

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


class Settings(BaseSettings):
    """Everything the service reads from its environment."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str = Field(
        "sqlite:///./squarescores.db",
        description="SQLAlchemy URL; postgresql+psycopg://... for PostgreSQL",
    )
    database_pool_size: int = Field(
        10,
        ge=1,
        # Fewer than FastAPI's 40 worker threads: a unit that holds a row lock must
        # always find a thread to finish in while the others wait on it.
        le=32,
        description="Units of work at the database at once per process, each with a "
        "pooled connection (SQLite: reads, beside its one write)",
    )
    sqlite_busy_timeout_ms: int = Field(
        5000,
        ge=0,
        description="SQLite: how long a write waits for its turn in this process, and "
        "then for another process's write lock, before it is answered 503",
    )
    max_rounds_per_match: int = Field(5000, ge=1, description="past it, 409 match_full")
    max_body_bytes: int = Field(64 * 1024, ge=1024)
    rate_limit_matches_per_minute: int = Field(
        30, ge=0, description="match creations a client may make a minute; 0 turns it off"
    )
    rate_limit_tokens_per_minute: int = Field(
        10,
        ge=0,
        description="token re-issues a client may make a minute, and a match take (counted "
        "apart), and as many host recoveries from a client (ten times as many for one "
        "match); 0 turns them off",
    )
    rate_limit_tickets_per_minute: int = Field(
        60,
        ge=0,
        description="stream tickets a client may take a minute with one token, and ten times "
        "as many with all its tokens (counted apart); 0 turns it off",
    )
    streams_per_address: int = Field(
        500,
        ge=0,
        description="live streams one client address may hold open on a process (a café's "
        "phones share one); past it 429; 0 turns it off",
    )
    streams_per_token: int = Field(
        2000,
        ge=0,
        description="live streams one token may hold open on a process, from every address "
        "together (a shared viewer link's crowd); past it 429; 0 turns it off",
    )
    rate_limit_reads_per_minute: int = Field(
        # Twice STREAMS_PER_ADDRESS: every phone one address may follow with reads its
        # sheet when it opens, and again after a restart, within the minute.
        1000,
        ge=0,
        description="sheets, CSVs and history pages a client may read a minute (a 304 is "
        "not counted), in each worker; 0 turns it off",
    )
    read_cache_bytes: int = Field(
        64 * 1024 * 1024,
        ge=0,
        description="bytes of rendered sheets, CSVs and history pages each worker keeps, "
        "for the reads of the same match version that follow; 0 keeps none",
    )
    cors_origins: list[str] = Field(
        default_factory=list, description='origins allowed by CORS, e.g. ["https://app.example"]'
    )
    # Comma-separated, as uvicorn's own FORWARDED_ALLOW_IPS is written (NoDecode: not JSON).
    forwarded_allow_ips: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="addresses or networks of the proxies whose X-Forwarded-For names the "
        "client (e.g. 127.0.0.1,10.0.0.0/8; * trusts every peer); empty: none, every "
        "request's client is the address it came from",
    )
    public_base_url: str | None = Field(
        None,
        description="where people open the service, for absolute join links (e.g. "
        "https://scores.example); unset: join links are relative to the service's root",
    )
    metrics_enabled: bool = Field(
        False, description="serve Prometheus metrics at /metrics (keep it off the internet)"
    )
    log_level: str = "info"
    log_json: bool = True

    @field_validator("forwarded_allow_ips", mode="before")
    @classmethod
    def _split_addresses(cls, value: object) -> object:
        if isinstance(value, str):
            return [item.strip() for item in value.split(",") if item.strip()]
        return value

    @field_validator("forwarded_allow_ips")
    @classmethod
    def _check_addresses(cls, value: list[str]) -> list[str]:
        # uvicorn would take a mistyped address as a name no peer ever has, and
        # trust nobody without a word: refused at startup instead.
        for item in value:
            if item != "*":
                ipaddress.ip_network(item, strict=False)
        return value


@lru_cache
def get_settings() -> Settings:
    """The process-wide settings."""
    return Settings()
