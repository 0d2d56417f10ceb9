"""The server's settings: command-line options and ``CRISP_*`` environment variables."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Every knob of ``crisp serve``. Each one is also read from ``CRISP_<NAME>``."""

    model_config = SettingsConfigDict(env_prefix="CRISP_", extra="ignore")

    host: str = Field("0.0.0.0", description="address to listen on (0.0.0.0: every network)")
    port: int = Field(8000, ge=0, le=65535, description="TCP port (0: any free port)")
    data_dir: Path = Field(Path("crisp-data"), description="where the SQLite file lives")
    clock_speed: float = Field(
        1.0,
        gt=0,
        le=1000,
        description="game seconds per real second: 1 for play; tests raise it so the rule "
        "times (look 10 s, window 3 s, per-draw time, 30 s between rounds) pass faster. "
        "Records keep game time, so they replay the same at any speed.",
    )
    between_rounds_s: float = Field(30, gt=0, description="game seconds the reveal stays up")
    grace_s: float = Field(30, gt=0, description="default grace (game seconds) for an absent seat")
    room_ttl_s: float = Field(
        24 * 3600, gt=0, description="a room with no one connected and no change expires after this"
    )
    sweep_every_s: float = Field(600, gt=0, description="how often expired rooms are removed")
    max_message_bytes: int = Field(4096, ge=256, description="largest WebSocket message accepted")
    rate_per_s: float = Field(20, gt=0, description="messages per second a connection may send")
    rate_burst: int = Field(40, ge=1, description="messages a connection may send at once")
    send_queue_max: int = Field(
        2000, ge=10, description="messages queued for a slow phone before it is disconnected"
    )
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="extra Origins allowed to open a WebSocket (the server's own always is)",
    )
    fixed_seed: int | None = Field(
        None,
        ge=0,
        description="tests only: every game's seeds are the engine's Fairness.from_int(S, n): "
        'the server seed SHA-256(b"crisp-seed:S") and an empty client seed a seat, whatever '
        "the phones send (so its deals are known; docs/fairness.md)",
    )
    window_lag_cap_ms: int = Field(
        250,
        ge=0,
        le=1000,
        description="R-WINDOW-LAG: the most a slow connection adds to its crisp window (game ms; "
        "half its measured round trip up to this; 0 turns the allowance off)",
    )
    probe_every_s: float = Field(
        2.0,
        gt=0,
        le=5,
        description="while a game runs, how often (real seconds) each connection is sent a "
        "probe to measure its round trip",
    )
    rtt_samples: int = Field(
        8, ge=1, le=64, description="the round trips whose median is a connection's estimate"
    )
    games: list[str] = Field(
        default_factory=lambda: ["crisp.games.crisp:SPEC"],
        description="the games this server hosts, as module:attribute (the first is the default)",
    )
    log_level: str = Field("info", description="uvicorn's log level")
    access_log: bool = Field(True, description="log each HTTP request (never tokens or cards)")
    access_log_healthz: bool = Field(False, description="log the health checks (/healthz) too")

    @property
    def db_path(self) -> Path:
        return self.data_dir / "crisp.sqlite3"
