# Runs `npusim traffic --json ARGS` twice, as given (CMD_A) and with more options (CMD_B), and
# requires the two outputs byte-identical. CMD_A and CMD_B are '|'-separated command lines.
string(REPLACE "|" ";" a "${CMD_A}")
string(REPLACE "|" ";" b "${CMD_B}")
execute_process(COMMAND ${a} OUTPUT_VARIABLE out_a RESULT_VARIABLE rc_a)
execute_process(COMMAND ${b} OUTPUT_VARIABLE out_b RESULT_VARIABLE rc_b)
if(NOT rc_a EQUAL 0 OR NOT rc_b EQUAL 0)
  message(FATAL_ERROR "traffic failed: rc ${rc_a} / ${rc_b}")
endif()
if(NOT out_a STREQUAL out_b)
  message(FATAL_ERROR "outputs differ:\n${out_a}\n${out_b}")
endif()
