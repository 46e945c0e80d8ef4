from mmr.cli.main import main

raise SystemExit(main())
