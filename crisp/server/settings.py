"""The server's settings: command-line options and ``CRISP_*`` environment variables."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from crisp.games import DEFAULT_GAMES

#: The SQLite database in the data directory.
DB_FILE = "crisp.sqlite3"


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
    rtt_settle_samples: int = Field(
        3,
        ge=1,
        le=64,
        description="this many round trips in a row near their own median settle a connection "
        "(then probed every probe_settled_every_s); if they disagree with its estimate, the link "
        "changed and they replace it (at most rtt_samples)",
    )
    probe_settled_every_s: float = Field(
        30.0,
        gt=0,
        le=60,
        description="how often (real seconds, give or take a quarter at random) a connection "
        "whose round trip is settled (rtt_settle_samples in a row near their own median) is "
        "probed; probe_every_s again as soon as an answer strays",
    )
    probe_budget_per_s: float = Field(
        4000.0,
        gt=0,
        description="the most probes a second the whole server sends at its rooms' probe ticks "
        "while its timers run on time; half as many each time they run over 20 ms late, and back "
        "within 5 s on time (after a mass reconnect, the connections not yet settled are probed "
        "in turn as the server can spare, instead of all every probe_every_s)",
    )
    games: list[str] = Field(
        default_factory=lambda: list(DEFAULT_GAMES),
        description="the games this server hosts, as module:attribute (the first is the default)",
    )
    database_url: str | None = Field(
        None,
        description="postgresql://user:password@host:port/db: keep rooms in PostgreSQL, shared by "
        "several server processes behind a load balancer that routes by room code "
        "(docs/operating.md: Scale out); unset: the embedded SQLite file of data_dir, for one "
        "process",
    )
    workers: int = Field(
        1,
        ge=1,
        le=64,
        description="server processes on this machine (more than 1: they share "
        "the rooms through PostgreSQL, database_url, behind HAProxy on host:port; "
        "docs/operating.md: Scale out)",
    )
    node_id: str | None = Field(
        None, description="this process's name in the room leases (default: host-pid-random)"
    )
    lease_s: float = Field(
        4,
        gt=0,
        description="PostgreSQL: seconds a room's lease lasts without renewal (after a "
        "node dies, its rooms can be claimed by others this long after its last renewal)",
    )
    lease_renew_s: float = Field(
        1, gt=0, description="PostgreSQL: how often a node renews all its leases (one statement)"
    )
    handover_check_s: float = Field(
        0.2,
        gt=0,
        description="PostgreSQL: how often a node looks for rooms another node asked "
        "for (it then hands them over: the wait of a room's first request on its node)",
    )
    claim_wait_s: float = Field(
        8,
        gt=0,
        description="PostgreSQL: how long a request for a room another node holds waits "
        "for it to be handed over (or its lease to run out) before a 503",
    )
    group_commit: bool = Field(
        True,
        description="one store transaction per event-loop turn for every room changed in it "
        "(each room's messages sent after its commit); off: one transaction per change",
    )
    store_retry_s: float = Field(
        1.0,
        gt=0,
        description="after a change could not be stored (a store outage), how long a room waits "
        "before it tries what is due again (a deadline, a deal, a bot's move)",
    )
    pg_writer_thread: bool = Field(
        True,
        description="PostgreSQL: group commit's transactions are sent by a writer thread on its "
        "own connection, so the event loop goes on while one is in flight; off: on the loop",
    )
    log_level: Literal["critical", "error", "warning", "info", "debug", "trace"] = Field(
        "info", description="uvicorn's log level: critical, error, warning, info, debug or trace"
    )
    log_format: Literal["text", "json"] = Field(
        "text",
        description="text: uvicorn's lines; json: every log line one JSON object (time, level, "
        "logger, message, and room when there is one), for a log collector",
    )
    access_log: bool = Field(True, description="log each HTTP request (never tokens or cards)")
    access_log_healthz: bool = Field(False, description="log the health checks (/healthz) too")

    # -- resource limits (docs/limits.md) --------------------------------------------------------
    rooms_max: int = Field(
        10_000, ge=1, description="open rooms at most; creating one more is refused (503)"
    )
    room_members_max: int = Field(
        24, ge=2, description="members of one room (8 seated, the rest seated at the rematch)"
    )
    room_watchers_max: int = Field(
        32, ge=0, description="connections of one room that watch without a seat token"
    )
    hello_timeout_s: float = Field(
        10, gt=0, description="real seconds a new WebSocket has to say hello before it is closed"
    )
    create_ip_per_min: float = Field(6, gt=0, description="room creations a minute, per IP")
    create_ip_burst: int = Field(5, ge=1, description="room creations at once, per IP")
    create_total_per_s: float = Field(10, gt=0, description="room creations a second, in total")
    create_total_burst: int = Field(50, ge=1, description="room creations at once, in total")
    join_ip_per_min: float = Field(30, gt=0, description="joins a minute, per IP")
    join_ip_burst: int = Field(10, ge=1, description="joins at once, per IP")
    join_total_per_s: float = Field(50, gt=0, description="joins a second, in total")
    join_total_burst: int = Field(200, ge=1, description="joins at once, in total")
    lookup_ip_per_min: float = Field(
        120,
        gt=0,
        description="requests naming a room code a minute, per IP (GET /api/rooms/CODE, /r/CODE, "
        "the QR code, the record, joins and WebSocket opens)",
    )
    lookup_ip_burst: int = Field(
        60, ge=1, description="requests naming a code at once, per IP (8 phones behind one NAT)"
    )
    lookup_total_per_s: float = Field(
        100, gt=0, description="requests naming a room code a second, in total (bounds guessing)"
    )
    lookup_total_burst: int = Field(
        2000,
        ge=1,
        description="requests naming a room code at once, in total (a restart's reconnections)",
    )
    miss_ip_per_min: float = Field(
        1,
        gt=0,
        description="lookups of a code that does not exist a minute, per IP; once spent, "
        "every lookup of that IP is refused until it refills",
    )
    miss_ip_burst: int = Field(10, ge=1, description="lookups of unknown codes at once, per IP")
    ws_ip_per_min: float = Field(60, gt=0, description="WebSocket opens a minute, per IP")
    ws_ip_burst: int = Field(20, ge=1, description="WebSocket opens at once, per IP")
    ws_total_per_s: float = Field(100, gt=0, description="WebSocket opens a second, in total")
    ws_total_burst: int = Field(2000, ge=1, description="WebSocket opens at once, in total")
    limit_ips_max: int = Field(
        10_000, ge=16, description="IPs each limit remembers (the least recent are forgotten)"
    )
    limit_exempt_ips: list[str] = Field(
        default_factory=list,
        description='client IPs no rate limit applies to (tests and benchmarks: ["127.0.0.1"]); '
        "the caps on rooms, members and watchers still do",
    )
    forwarded_allow_ips: list[str] = Field(
        default_factory=list,
        description="the proxies in front (addresses or CIDR networks, e.g. 127.0.0.1 for a Caddy "
        "on this machine; '*' is refused) whose X-Forwarded-For gives the client's IP for the "
        "per-IP limits: its rightmost entry that is not a listed proxy; empty: the peer's "
        "address is the client's",
    )
    http_body_max_bytes: int = Field(
        16_384, ge=1024, description="largest HTTP request body (413 beyond it)"
    )
    http_header_timeout_s: float = Field(
        10, gt=0, description="seconds a connection has to send a request's headers"
    )
    http_pending_max: int = Field(
        256,
        ge=1,
        description="connections still sending their headers at most; one more closes the "
        "oldest (a slow-header flood cannot use up the file descriptors)",
    )
    http_keep_alive_s: int = Field(5, ge=1, description="seconds an idle HTTP connection is kept")
    http_concurrency_max: int = Field(
        40_000,
        ge=16,
        description="connections and tasks at once, WebSockets included (uvicorn's "
        "limit_concurrency: an HTTP request beyond it is answered 503); lowered to the "
        "process's file limit less a margin",
    )
    http_backlog: int = Field(2048, ge=16, description="the listening socket's backlog")
    gc_thresholds: str = Field(
        "3000,50,100",
        pattern=r"^[0-9]{1,9},[0-9]{1,6},[0-9]{1,6}$",
        description="the garbage collector's three thresholds (gc.set_threshold) for "
        "`crisp serve`: young passes of a few thousand objects (about a millisecond each), whose "
        "survivors the policy freezes (gc_freeze_s); with thousands of sockets a full "
        "collection walks every long-lived object (about 1 s at 1,000 rooms of 8) and stalls "
        "every room; Python's default is 700,10,10; 0,0,0 turns the collector off "
        "(docs/performance.md)",
    )
    ws_control_per_s: float = Field(
        2, gt=0, description="WebSocket ping and pong frames a second a connection may send"
    )
    ws_control_burst: int = Field(10, ge=1, description="ping and pong frames at once")
    ws_control_flood: int = Field(
        100, ge=1, description="ping or pong frames over the budget before the socket is closed"
    )
    ws_ping_after_s: float = Field(
        20.0,
        gt=0,
        le=3600,
        description="a WebSocket that has sent nothing for this long (real seconds) is sent a "
        "ping: one that speaks (a phone in a game answers its probes) is not pinged; the "
        "sockets are looked at every quarter of the shorter of this and ws_ping_timeout_s",
    )
    ws_ping_timeout_s: float = Field(
        20.0, gt=0, le=3600, description="a ping unanswered this long closes its socket (1011)"
    )
    ws_close_timeout_s: float = Field(
        10.0, gt=0, le=600, description="a closing WebSocket waits this long for the peer's close"
    )
    log_lines_per_min: int = Field(
        20, ge=1, description="log lines one connection may cause a minute (then one summary)"
    )
    json_depth_max: int = Field(
        32, ge=2, description="deepest nesting of arrays and objects in a message (bad_json beyond)"
    )
    log_template_per_min: int = Field(
        60,
        ge=1,
        description="server-wide log lines a minute of each kind (the same message template, "
        "e.g. a refused foreign Origin), then one line counting the dropped",
    )
    gc_freeze_s: float = Field(
        0.5,
        ge=0,
        description="seconds between the collector's freezes (gc.freeze: what is alive then is "
        "never walked again, so no pass grows with the number of sockets); 0: no freezes "
        "(docs/performance.md, the collector)",
    )
    gc_freeze_generation: int = Field(
        1,
        ge=-1,
        le=1,
        description="the generation collected just before a freeze when the collector's own "
        "passes found garbage since the last one (cycles are being made), so that it is freed "
        "rather than frozen: 1 both young ones (everything made since the last freeze), 0 the "
        "youngest, -1 none; when they found none, the freeze comes without a collection",
    )
    gc_pause_target_ms: float = Field(
        8.0,
        ge=0,
        description="the longest collection before a freeze that the freezes aim for: one over "
        "it halves the time to the next freeze (down to CRISP_GC_FREEZE_MIN_S), one under a "
        "quarter of it doubles it (up to CRISP_GC_FREEZE_S); 0: freeze every CRISP_GC_FREEZE_S",
    )
    gc_freeze_min_s: float = Field(
        0.25, gt=0, description="the shortest time between two freezes of the collector"
    )
    gc_quiet_rooms: int = Field(
        0,
        ge=0,
        description="at most this many rooms open is a quiet moment: everything is unfrozen "
        "and collected in full once (the cycles that became garbage while frozen are freed)",
    )

    @field_validator("forwarded_allow_ips")
    @classmethod
    def _forwarded_proxies(cls, value: list[str]) -> list[str]:
        """Addresses or CIDR networks only; ``*`` refused (limits/clientaddr.py says why)."""
        from crisp.server.networks import parse_trusted

        parse_trusted(value)
        return value

    @property
    def db_path(self) -> Path:
        return self.data_dir / DB_FILE
