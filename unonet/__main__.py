from unonet.cli import main

raise SystemExit(main())
