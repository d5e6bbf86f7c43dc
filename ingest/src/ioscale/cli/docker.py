"""`ioscale docker engine ...` (the project's own Docker engine) and `ioscale docker images ...` (images built here).

scripts/docker-engine.sh and scripts/docker-images.sh call these, so a machine without the package installed still
has them (see ``ioscale.stack.docker_engine`` and ``ioscale.stack.images``).
"""

from __future__ import annotations

import argparse
import sys

from ioscale.errors import ExitStatus

ENGINE_ACTIONS = ("install", "start", "stop", "status", "env")


def _cmd_engine(args: argparse.Namespace) -> int:
    from ioscale.stack import docker_engine
    from ioscale.stack.settings import StackSettings

    engine = docker_engine.Engine(StackSettings.from_env())
    if args.action == "install":
        print(docker_engine.install())
        if docker_engine.compose_version(engine) != docker_engine.COMPOSE_VERSION.lstrip("v"):
            print(f"building docker compose {docker_engine.COMPOSE_VERSION} from its Go module (~3 min the first "
                  "time)...", file=sys.stderr, flush=True)
        print(docker_engine.install_compose(engine))
    elif args.action == "start":
        pid = docker_engine.start(engine)
        print(f"dockerd running (pid {pid}); use it with:\n  eval \"$(scripts/docker-engine.sh env)\"")
    elif args.action == "stop":
        cmds = docker_engine.stop(engine)
        print(f"dockerd stopped; {len(cmds)} network change(s) undone")
        for cmd in cmds:
            print("  " + " ".join(cmd))
    elif args.action == "env":
        print("\n".join(f"export {k}={v}" for k, v in engine.variables().items()))
    else:
        pid = docker_engine.running(engine)
        print(f"dockerd {'running (pid %d)' % pid if pid else 'stopped'}; DOCKER_HOST={engine.host}")
        return ExitStatus.OK if pid else ExitStatus.ERROR
    return ExitStatus.OK


def _cmd_images(args: argparse.Namespace) -> int:
    import time

    from ioscale.stack import images
    from ioscale.stack.settings import StackSettings

    builder = images.Builder(StackSettings.from_env())
    if args.action == "list":
        for tag in [images.BASE_IMAGE] + [r.tag for r in images.RECIPES]:
            label = builder.label(tag)
            print(f"{tag:38} {'%6.0f MB' % builder.size_mb(tag) if label else '   missing'}  recipe {label or '-'}")
        return ExitStatus.OK
    t0 = time.monotonic()
    built = builder.build_all(args.names)
    builder.ui.done(f"images ready in {time.monotonic() - t0:.0f}s ({len(built)} built, the rest cached)")
    return ExitStatus.OK


def add_parser(sub: argparse._SubParsersAction) -> None:
    docker = sub.add_parser("docker", help="the project's own Docker engine and the images built on this machine")
    what = docker.add_subparsers(dest="docker_command", required=True)
    engine = what.add_parser("engine", help="install, start or stop dockerd under <home>/docker (its own socket); "
                                            "stop undoes its network changes")
    engine.add_argument("action", choices=ENGINE_ACTIONS)
    engine.set_defaults(func=_cmd_engine)
    imgs = what.add_parser("images", help="build the images (debootstrap base, one per service; cached by recipe "
                                          "hash) or list them")
    imgs.add_argument("action", nargs="?", choices=("build", "list"), default="build")
    imgs.add_argument("names", nargs="*", metavar="NAME", help="build only these (and their parents)")
    imgs.set_defaults(func=_cmd_images)
