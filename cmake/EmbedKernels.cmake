# Turns each kernels/*.cl file into a generated header holding its text as a string literal,
# plus one index header (kernels/EmbeddedKernels.h) that lists all of them by file name.
function(nnwb_embed_kernels target)
  file(GLOB cl_files CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/kernels/*.cl")
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/generated/kernels")
  set(index "${out_dir}/EmbeddedKernels.h")
  add_custom_command(
    OUTPUT "${index}"
    COMMAND ${CMAKE_COMMAND} -DOUT_DIR=${out_dir} -DINDEX=${index}
            "-DCL_FILES=${cl_files}" -P "${PROJECT_SOURCE_DIR}/cmake/EmbedKernelsScript.cmake"
    DEPENDS ${cl_files} "${PROJECT_SOURCE_DIR}/cmake/EmbedKernelsScript.cmake"
    COMMENT "Embedding OpenCL kernel sources"
    VERBATIM)
  target_sources(${target} PRIVATE "${index}")
  target_include_directories(${target} PRIVATE "${CMAKE_CURRENT_BINARY_DIR}/generated")
endfunction()
