# JSON Schemas (docs/schema/): generated from the parsers' tables, shipped up to date, and
# every shipped scenario and profile validates against them with python3-jsonschema.
add_test(NAME schema.up_to_date
         COMMAND ${CMAKE_COMMAND} -DNPUSIM=$<TARGET_FILE:npusim> -DSHIPPED=${PROJECT_SOURCE_DIR}/docs/schema
                 -DOUT=${CMAKE_CURRENT_BINARY_DIR}/schema -P ${CMAKE_CURRENT_SOURCE_DIR}/check_schema.cmake)
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME schema.validates_shipped_files
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/sim/input/validate_schemas.py
                 ${PROJECT_SOURCE_DIR})
file(GLOB schema_bad ${CMAKE_CURRENT_SOURCE_DIR}/data/schema_bad/*.yaml)
add_test(NAME schema.rejects_what_the_parser_rejects
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/sim/input/validate_schemas.py
                 ${PROJECT_SOURCE_DIR} --bad $<TARGET_FILE:npusim> ${schema_bad})
