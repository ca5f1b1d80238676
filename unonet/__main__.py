try:
    from unonet.cli import main
except KeyboardInterrupt:  # Ctrl-C while the command is still loading: one line, as at any other time
    import sys

    print("unonet: interrupted", file=sys.stderr)
    raise SystemExit(130) from None

raise SystemExit(main())
