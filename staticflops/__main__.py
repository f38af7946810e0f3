from staticflops.cli.entry import main

main()
