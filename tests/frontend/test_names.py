from lifter.frontend.names import fresh_name


def test_one_generator_keeps_each_callers_spelling():
    taken = {"x_t", "x_t2", "lift_k", "kernel_f", "kernel_f_2"}
    assert fresh_name("y", taken) == "y" and "y" in taken
    assert fresh_name("x_t", taken) == "x_t3"  # the passes' temporaries (transform/rewrite.py)
    assert fresh_name("lift_k", taken, first=1) == "lift_k1"  # a stepped pointer's index (pointer_steps.py)
    assert fresh_name("kernel_f", taken, "_") == "kernel_f_3"  # the CUDA backend's kernels and variables
    assert fresh_name("kernel_f", taken, "_") == "kernel_f_4"  # each name taken is added to `taken`
