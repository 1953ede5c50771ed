# kvb_join_paths(out base path): `path` when it is absolute, else base/path.
# An absolute CMAKE_INSTALL_LIBDIR must not be glued onto ${prefix}.
function(kvb_join_paths out base path)
  if(IS_ABSOLUTE "${path}")
    set(${out} "${path}" PARENT_SCOPE)
  else()
    set(${out} "${base}/${path}" PARENT_SCOPE)
  endif()
endfunction()
