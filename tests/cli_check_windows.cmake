# End-to-end checks of `npusim check-windows` (uses npusim_cli_test from cli_tests.cmake).
npusim_cli_test(check_windows_help 0 "DESCRIPTORS_FILE.*--window" check-windows --help)
npusim_cli_test(check_windows_clean 0 "clean.json: 6 descriptors, no window violations"
                check-windows scenarios/descriptors/clean.json)
npusim_cli_test(check_windows_violations 1
                "violations.csv:12: descriptor 7 .*dst \\[0x8fff0, 0x90010\\) violates dataram_window.*upper bound 0x90000; the start passes.*violations.csv: 9 descriptors, 7 window violations in 6 descriptors \\(3 missed"
                check-windows scenarios/descriptors/violations.csv)
npusim_cli_test(check_windows_json 1 "^\\{\"descriptors\":9,.*\"ok\":false"
                check-windows --json scenarios/descriptors/violations.csv)
npusim_cli_test(check_windows_user_window 0 "no window violations.*wide \\(dram_addr >= 0x70000"
                check-windows --window wide=0x70000:0x100000 scenarios/descriptors/violations.csv)
npusim_cli_test(check_windows_format_override 2 "violations.csv:1:1: not valid JSON: invalid literal"
                check-windows --format json scenarios/descriptors/violations.csv)
npusim_cli_test(check_windows_bad_value 2 "bad_descriptors.csv:4: len is negative \\(at '-64'\\)"
                check-windows tests/data/bad_descriptors.csv)
npusim_cli_test(check_windows_bad_window 2 "--window: expected NAME=LO:HI.*'dataram=0x80000-0x90000'"
                check-windows --window dataram=0x80000-0x90000 scenarios/descriptors/clean.json)
npusim_cli_test(check_windows_missing_file 2 "nope.csv: the descriptors file does not exist"
                check-windows nope.csv)
npusim_cli_test(check_windows_unknown_extension 2 "cannot tell the format.*--format"
                check-windows tests/data/bad_op.ops)
npusim_cli_test(check_windows_bad_format 2 "--format" check-windows --format xml scenarios/descriptors/clean.json)
