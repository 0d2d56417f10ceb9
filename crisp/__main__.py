from crisp.cli import main

raise SystemExit(main())
