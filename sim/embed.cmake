# npusim_embed(OUT_CPP SYMBOL INPUT): a C++ file defining `const char* const SYMBOL` in
# namespace npusim::sim with the contents of INPUT. Re-runs when INPUT changes.
function(npusim_embed out_cpp symbol input)
  file(READ ${input} content)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${input})
  file(CONFIGURE OUTPUT ${out_cpp} CONTENT
"// Generated from ${input} by sim/embed.cmake. Do not edit.
namespace npusim::sim {
extern const char* const ${symbol};
const char* const ${symbol} = R\"npusim_embed(@content@)npusim_embed\";
}  // namespace npusim::sim
" @ONLY)
endfunction()
