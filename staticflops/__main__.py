from staticflops.cli.app import main

main()
