"""`ioscale config`: show or change the analytics job's settings (``<home>/analytics.conf``)."""

from __future__ import annotations

import argparse


def _cmd_config(args: argparse.Namespace) -> int:
    from ioscale.errors import ConfigError
    from ioscale.provision import analytics_config
    from ioscale.stack.settings import StackSettings

    home = StackSettings.from_env().home
    values = analytics_config.load(home)
    changes = {}
    for item in args.settings:
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"expected KEY=VALUE, got {item!r}", hint="e.g. ioscale config slo='p99.999 < 2 ms'")
        analytics_config.check(key.strip(), value.strip())
        changes[key.strip()] = value.strip()
    for key in args.unset or []:
        analytics_config.require_known(key)
        values.pop(key, None)
    if changes or args.unset:
        values.update(changes)
        path = analytics_config.save(home, values)
        print(f"saved {path}; `ioscale stack up` redeploys the analytics job with it (from a savepoint)")
    width = max(len(k) for k in analytics_config.TUNABLES)
    for key, tunable in analytics_config.TUNABLES.items():
        shown = values.get(key, "(job default)")
        print(f"{key:<{width}}  {shown}")
        if args.verbose:
            print(f"{'':<{width}}  {tunable.meaning}")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    cfg = sub.add_parser("config", help="show or change the analytics job's settings (QoS objectives, saturation "
                                        "thresholds, lateness); `stack up` applies them")
    cfg.add_argument("settings", nargs="*", metavar="KEY=VALUE", help="e.g. slo='p99 < 1 ms, p99.999 < 2 ms'")
    cfg.add_argument("--unset", action="append", metavar="KEY", help="back to the job's default")
    cfg.add_argument("-v", "--verbose", action="store_true", help="explain each setting")
    cfg.set_defaults(func=_cmd_config)
