# The fused all-reduce + RMSNorm examples (issue 12) compiled for the GPU
# checks of run_gpu_tests.sh (steps fused-*): per hidden size, element type
# and world size, one cubin per rank and the DSL reference the check runs,
# compiled as `dslrun --reference` would compile it (docs/runtime.md,
# "Any kernel": -D world_size=W plus the kernel's constants, the stacked
# tensors retyped to the kernel's dtype), so the GPU machine needs no dslc:
#
#   kernels/fused/NAME.hH.DTYPE.wW.r{rank}.cubin   the kernel (rank-specialized)
#   kernels/fused/NAME.hH.DTYPE.wW.ref.cubin       its reference for W ranks
#   kernels/fused/rmsnorm.hH.DTYPE.cubin           the plain RMSNorm (any rank)
#   kernels/fused/fused_all_reduce_rmsnorm_fp8.wW.sim/  a simulator dump for
#                                                  the differential check
#
# About 110 dslc runs (a minute on two cores), so not part of `all`: build
# them with `cmake --build BUILD --target dslc_fused_kernels`. Included from
# tests/runtime/CMakeLists.txt when dslc is built.

set(DSLC_FUSED_HIDDEN 1000 4096 5120 8192 CACHE STRING
    "Hidden sizes the fused examples are compiled for (GPU checks; 1000 is
    not a whole number of 16-element pieces)")
set(DSLC_FUSED_WORLDS 1 2 CACHE STRING
    "World sizes the fused examples are compiled for (GPU checks)")
set(DSLC_FUSED_DTYPES bfloat16 float16)
set(fused_dir ${DSLC_TEST_KERNEL_DIR}/fused)
file(MAKE_DIRECTORY ${fused_dir})
set(fused_outputs)

# dslc_fused_example(NAME KERNEL REFERENCE [RANKED] PARAMS P=RANK...): the
# PARAMs are the floating tensors that follow the element type (their rank
# in the kernel; the reference's is one more, the stacked dimension).
# RANKED: the kernel takes my_rank and world_size (one cubin per rank).
function(dslc_fused_example name kernel reference)
  cmake_parse_arguments(ARG "RANKED" "" "PARAMS" ${ARGN})
  set(src ${PROJECT_SOURCE_DIR}/examples/${name}.py)
  set(outs)
  foreach(dtype ${DSLC_FUSED_DTYPES})
    set(ksig)
    set(rsig)
    foreach(p ${ARG_PARAMS})
      string(REPLACE "=" ";" pr ${p})
      list(GET pr 0 pname)
      list(GET pr 1 prank)
      math(EXPR rrank "${prank} + 1")
      list(APPEND ksig "${pname}=${dtype}[${prank}]")
      list(APPEND rsig "${pname}=${dtype}[${rrank}]")
    endforeach()
    list(JOIN ksig "," ksig)
    list(JOIN rsig "," rsig)
    set(ksigargs)
    set(rsigargs)
    if(NOT dtype STREQUAL "bfloat16") # bfloat16 is what the file annotates
      set(ksigargs --signature ${ksig})
      set(rsigargs --signature ${rsig})
    endif()
    foreach(H ${DSLC_FUSED_HIDDEN})
      set(stem ${fused_dir}/${name}.h${H}.${dtype})
      if(NOT ARG_RANKED)
        add_custom_command(
          OUTPUT ${stem}.cubin ${stem}.cubin.json
          COMMAND dslc ${src} -k ${kernel} -D H=${H} ${ksigargs}
                  --emit=cubin -o ${stem}.cubin
          DEPENDS dslc ${src}
          COMMENT "dslc ${name}.py, hidden ${H}, ${dtype}")
        list(APPEND outs ${stem}.cubin)
      endif()
      foreach(W ${DSLC_FUSED_WORLDS})
        if(ARG_RANKED)
          math(EXPR last "${W} - 1")
          foreach(RANK RANGE 0 ${last})
            set(out ${stem}.w${W}.r${RANK}.cubin)
            add_custom_command(
              OUTPUT ${out} ${out}.json
              COMMAND dslc ${src} -k ${kernel} -D my_rank=${RANK}
                      -D world_size=${W} -D H=${H} ${ksigargs}
                      --emit=cubin -o ${out}
              DEPENDS dslc ${src}
              COMMENT "dslc ${name}.py, hidden ${H}, ${dtype}, rank ${RANK} of ${W}")
            list(APPEND outs ${out})
          endforeach()
        endif()
        set(out ${stem}.w${W}.ref.cubin)
        add_custom_command(
          OUTPUT ${out} ${out}.json
          COMMAND dslc ${src} -k ${reference} -D world_size=${W} -D H=${H}
                  ${rsigargs} --emit=cubin -o ${out}
          DEPENDS dslc ${src}
          COMMENT "dslc ${name}.py:${reference}, hidden ${H}, ${dtype}, ${W} rank(s)")
        list(APPEND outs ${out})
      endforeach()
    endforeach()
  endforeach()
  set(fused_outputs ${fused_outputs} ${outs} PARENT_SCOPE)
endfunction()

set(fused_params x=2 residual=2 weight=1 out=2 residual_out=2)
dslc_fused_example(fused_all_reduce_rmsnorm
  fused_all_reduce_rmsnorm_kernel fused_all_reduce_rmsnorm_ref
  RANKED PARAMS ${fused_params})
dslc_fused_example(fused_all_reduce_rmsnorm_two_shot
  fused_all_reduce_rmsnorm_two_shot_kernel fused_all_reduce_rmsnorm_two_shot_ref
  RANKED PARAMS ${fused_params})
dslc_fused_example(fused_all_reduce_rmsnorm_fp8
  fused_all_reduce_rmsnorm_fp8_kernel fused_all_reduce_rmsnorm_fp8_ref
  RANKED PARAMS ${fused_params})
dslc_fused_example(rmsnorm rmsnorm_kernel rmsnorm_ref PARAMS ${fused_params})

# Differential check of the fp8 kernel: the simulator's inputs and outputs
# (33 tokens x hidden 5120, seed 7) that dslrun --inputs-from compares with
# the GPU's element by element (fp8 within 1 ulp: the format's rounding).
set(fp8_src ${PROJECT_SOURCE_DIR}/examples/fused_all_reduce_rmsnorm_fp8.py)
foreach(W ${DSLC_FUSED_WORLDS})
  set(dump ${fused_dir}/fused_all_reduce_rmsnorm_fp8.w${W}.sim)
  add_custom_command(
    OUTPUT ${dump}/manifest.json
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${dump}
    COMMAND dslc ${fp8_src} -k fused_all_reduce_rmsnorm_fp8_kernel --simulate
            --world-size ${W} -D H=5120 --size x=33x5120 --size residual=33x5120
            --size weight=5120 --size out=33x5120 --size residual_out=33x5120
            --size scale=1 --size out_fp8=33x5120 --seed 7
            --reference ${fp8_src}:fused_all_reduce_rmsnorm_fp8_ref
            --dump-dir ${dump} > ${dump}.log
    DEPENDS dslc ${fp8_src}
    COMMENT "dslc --simulate fused_all_reduce_rmsnorm_fp8.py, ${W} rank(s) (dump)")
  list(APPEND fused_outputs ${dump}/manifest.json)
endforeach()

add_custom_target(dslc_fused_kernels DEPENDS ${fused_outputs})
