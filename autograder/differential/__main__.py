from autograder.differential import main

raise SystemExit(main())
