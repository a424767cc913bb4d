"""The CUDA output made C++ by token (frontend/cxx_names.py): C names that are C++ keywords are
renamed everywhere code is, and nowhere else."""
from lifter.frontend.cxx_names import cxx_names


def test_keywords_renamed_in_code_and_directives_not_in_comments_strings_or_includes():
    text = ('#include "new.h"\n#define N(new) (new + 1)\n/* new */ int new = 0; char *s = "new";\n'
            'int f(int class) { return new + class; }\n')
    out = cxx_names(text, {"new", "class"})
    assert out == ('#include "new.h"\n#define N(lift_cxx_new) (lift_cxx_new + 1)\n/* new */ int lift_cxx_new = 0;'
                   ' char *s = "new";\nint f(int lift_cxx_class) { return lift_cxx_new + lift_cxx_class; }\n')


def test_fresh_name_avoids_words_of_code_and_directives():
    text = "#define lift_cxx_new 3\nint new, lift_cxx_new_2;\n"
    assert cxx_names(text, {"new"}) == "#define lift_cxx_new 3\nint lift_cxx_new_3, lift_cxx_new_2;\n"


def test_kernel_template_lines_kept_and_user_typename_renamed():
    text = ("template <typename LIFT_T0, typename LIFT_T1>\n__global__ void k(LIFT_T0 a, LIFT_T1 b) {}\n"
            "int typename = 1;\n")
    out = cxx_names(text, {"typename"})
    assert out.startswith("template <typename LIFT_T0, typename LIFT_T1>\n")
    assert out.endswith("int lift_cxx_typename = 1;\n")


def test_null_pointer_constant_and_nothing_to_do():
    assert cxx_names("double *p = (void *) 0;\n", set()) == "double *p = nullptr;\n"
    assert cxx_names("int x = 0;\n", set()) == "int x = 0;\n"


def test_body_restored_as_written_is_renamed_too():
    """A function whose `*p++` loop stays sequential gets its body back as written (pointer_steps),
    and that body, too, is made C++: the renaming runs after the restoring."""
    from lifter import LiftOptions, lift_source
    text = ("void fill(double *p, int n, double new) {\n"
            "  for (int i = 0; i < n; i++) { *p++ = new; new = new * 0.5 + 1.0; }\n}\n")
    out = lift_source(text, "fill.c", LiftOptions(target="cuda")).output
    assert "{ *p++ = lift_cxx_new; lift_cxx_new = lift_cxx_new * 0.5 + 1.0; }" in out
