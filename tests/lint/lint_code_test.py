#!/usr/bin/env python3
"""Tests scripts/lint_code.py on small trees it writes to a temporary folder: each check fires on
a violation it should catch and stays quiet on the allowed forms next to it."""
import os
import subprocess
import sys
import tempfile
import unittest

LINT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                    "lint_code.py")


def run_lint(files, allowlist="", fix=False, lint_only=None):
    """Writes `files` ({path: text}) under a temporary root, lints them there (`lint_only`: just
    those paths), returns the exit code and stdout; with `fix`, also the allowlist afterwards."""
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            full = os.path.join(root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write(text)
        allow = os.path.join(root, "allow.txt")
        with open(allow, "w", encoding="utf-8") as f:
            f.write(allowlist)
        env = dict(os.environ, OMNIGRAPH_LINT_ALLOWLIST=allow)
        args = (["--fix"] if fix else []) + list(lint_only if lint_only is not None else files)
        out = subprocess.run([sys.executable, LINT, *args], cwd=root, env=env,
                             capture_output=True, text=True, check=False)
        if fix:
            with open(allow, encoding="utf-8") as f:
                return out.returncode, out.stdout, f.read()
        return out.returncode, out.stdout


def long_function(name, lines):
    body = "".join(f"  x += {i};\n" for i in range(lines - 2))
    return f"int {name}(int x) {{\n{body}}}\n"


class LayeringTest(unittest.TestCase):
    def test_upward_include_is_reported_with_its_line(self):
        code, out = run_lint({"src/storage/a.cc": '#include "base/status.h"\n#include "engine/graph/graph.h"\n'})
        self.assertEqual(code, 1)
        self.assertIn("src/storage/a.cc:2: layer 'storage' may not include \"engine/graph/graph.h\"", out)
        self.assertNotIn("base/status.h", out)

    def test_sibling_layers_do_not_see_each_other(self):
        code, out = run_lint({"src/table/a.h": '#include "commit/fold.h"\n'})
        self.assertEqual(code, 1)
        self.assertIn("layer 'table' may not include \"commit/fold.h\"", out)

    def test_front_ends_and_public_headers_see_only_the_public_api(self):
        code, out = run_lint({
            "src/cli/main.cc": '#include "omnigraph/omnigraph.h"\n#include "base/json.h"\n',
            "include/omnigraph/omnigraph.h": '#include "base/status.h"\n',
        })
        self.assertEqual(code, 1)
        self.assertIn("src/cli/main.cc:2: layer 'cli'", out)
        self.assertIn("include/omnigraph/omnigraph.h:1: layer 'omnigraph'", out)
        self.assertNotIn("main.cc:1:", out)

    def test_base_may_include_only_the_status_code_list_from_the_public_api(self):
        code, out = run_lint({
            "src/base/status.h": '#include "omnigraph/status_codes.h"\n#include "omnigraph/status.h"\n',
            "src/storage/a.h": '#include "omnigraph/status_codes.h"\n',
            "include/omnigraph/status_codes.h": "#define OMNIGRAPH_STATUS_CODES(X) X(kOk)\n",
        })
        self.assertEqual(code, 1)
        self.assertIn("src/base/status.h:2: layer 'base' may not include \"omnigraph/status.h\"",
                      out)
        self.assertIn("src/storage/a.h:1: layer 'storage' may not include", out)
        self.assertNotIn("src/base/status.h:1:", out)
        self.assertNotIn("status_codes.h:1:", out)

    def test_the_status_code_list_may_include_nothing(self):
        code, out = run_lint({
            "include/omnigraph/status_codes.h": "#pragma once\n#include <cstdint>\n",
            "include/omnigraph/status.h": "#include <cstdint>\n",
        })
        self.assertEqual(code, 1)
        self.assertIn("include/omnigraph/status_codes.h:2: includes something", out)
        self.assertNotIn("include/omnigraph/status.h", out)

    def test_an_include_in_a_comment_or_string_is_not_an_include(self):
        code, out = run_lint({"src/base/a.cc": '// #include "engine/graph/graph.h"\nint x;\n'})
        self.assertEqual((code, out), (0, ""))


class FunctionLengthTest(unittest.TestCase):
    def test_a_function_over_the_limit_is_reported(self):
        code, out = run_lint({"src/base/a.cc": "namespace omnigraph {\n" + long_function("Big", 81)
                              + long_function("Small", 80) + "}\n"})
        self.assertEqual(code, 1)
        self.assertIn("src/base/a.cc:2: function Big is 81 lines", out)
        self.assertNotIn("Small", out)

    def test_lambdas_blocks_and_strings_with_braces_count_toward_the_function(self):
        text = ("void Outer() {\n  auto f = [&]() {\n    if (x) { y(\"}}}\"); }\n  };\n"
                + "".join("  f();\n" for _ in range(80)) + "}\n")
        code, out = run_lint({"src/base/a.cc": text})
        self.assertIn("function Outer is 85 lines", out)
        self.assertEqual(code, 1)

    def test_member_functions_in_a_class_body_are_measured(self):
        text = "class C {\n public:\n  " + long_function("Member", 90).replace("\n", "\n  ") + "};\n"
        code, out = run_lint({"src/base/a.h": text})
        self.assertIn("function Member is 90 lines", out)

    def test_a_macro_body_is_not_a_function(self):
        macro = "#define CODES(X) \\\n" + "".join(f"  X(k{i}) \\\n" for i in range(90)) + "\n"
        code, out = run_lint({"src/base/a.cc": macro + "int F(int x) { return x; }\n"})
        self.assertEqual((code, out), (0, ""))

    def test_tests_are_exempt(self):
        code, out = run_lint({"src/base/a_test.cc": long_function("Big", 200)})
        self.assertEqual((code, out), (0, ""))

    def test_allowlisted_function_passes_and_a_stale_entry_fails(self):
        files = {"src/base/a.cc": long_function("Big", 100) + long_function("WasBig", 10)}
        code, out = run_lint(files, "src/base/a.cc:Big 100\nsrc/base/a.cc:WasBig 90\n")
        self.assertEqual(code, 1)
        self.assertNotIn("function Big", out)
        self.assertIn("allow.txt:2: src/base/a.cc:WasBig is no longer over 80 lines", out)

    def test_a_listed_function_may_not_grow_and_a_shrunk_one_lowers_its_entry(self):
        files = {"src/base/a.cc": long_function("Grew", 101) + long_function("Shrank", 95)
                 + long_function("Same", 90)}
        code, out = run_lint(files, "src/base/a.cc:Grew 100\nsrc/base/a.cc:Shrank 96\n"
                                    "src/base/a.cc:Same 90\n")
        self.assertEqual(code, 1)
        self.assertIn("function Grew grew to 101 lines; scripts/long-functions.txt:1 allows 100", out)
        self.assertIn("allow.txt:2: src/base/a.cc:Shrank is 95 lines now, not 96; lower the entry",
                      out)
        self.assertNotIn("Same", out)

    def test_fix_lowers_a_shrunk_entry_and_removes_a_stale_one_but_never_raises(self):
        files = {"src/base/a.cc": long_function("Grew", 101) + long_function("Shrank", 95)
                 + long_function("WasBig", 10) + long_function("Same", 90)}
        allow = ("# header\nsrc/base/a.cc:Grew 100\nsrc/base/a.cc:Shrank 96\n"
                 "src/base/a.cc:WasBig 90\nsrc/base/a.cc:Same 90\n")
        code, out, after = run_lint(files, allow, fix=True)
        self.assertEqual(after, "# header\nsrc/base/a.cc:Grew 100\nsrc/base/a.cc:Shrank 95\n"
                                "src/base/a.cc:Same 90\n")
        self.assertIn("src/base/a.cc:Shrank lowered 96 -> 95", out)
        self.assertIn("src/base/a.cc:WasBig removed", out)
        # What --fix may not do is still an error: the grown function.
        self.assertEqual(code, 1)
        self.assertIn("function Grew grew to 101 lines", out)
        self.assertNotIn("Shrank is 95 lines now", out)

    def test_fix_with_nothing_to_fix_leaves_the_list_and_passes(self):
        allow = "src/base/a.cc:Big 100\n"
        code, out, after = run_lint({"src/base/a.cc": long_function("Big", 100)}, allow, fix=True)
        self.assertEqual((code, out, after), (0, "", allow))

    def test_an_entry_without_its_length_is_refused(self):
        code, out = run_lint({"src/base/a.cc": long_function("Big", 100)}, "src/base/a.cc:Big\n")
        self.assertEqual(code, 1)
        self.assertIn("allow.txt:1: an entry is 'path:function LINES'", out)


class SeamTest(unittest.TestCase):
    def test_commit_never_includes_table(self):
        code, out = run_lint({"src/commit/a.cc": '#include "storage/object_store.h"\n'
                                                 '#include "table/table_store.h"\n'})
        self.assertEqual(code, 1)
        self.assertIn("src/commit/a.cc:2: layer 'commit' may not include \"table/table_store.h\"",
                      out)
        self.assertNotIn("a.cc:1:", out)

    def test_front_ends_may_not_reach_past_their_folder_by_a_relative_path(self):
        files = {"src/cli/a.cc": '#include "../engine/graph.h"\n#include "../cli/b.h"\n'
                                 '#include "../../include/omnigraph/status.h"\n',
                 "src/cli/b.h": "int b;\n"}
        code, out = run_lint(files)
        self.assertEqual(code, 1)
        self.assertIn("src/cli/a.cc:1: layer 'cli' includes \"../engine/graph.h\"", out)
        self.assertNotIn("a.cc:2:", out)
        self.assertNotIn("a.cc:3:", out)

    def test_front_ends_may_not_name_a_project_folder_in_angle_brackets(self):
        code, out = run_lint({"src/server/a.cc": "#include <engine/graph/graph.h>\n#include <string>\n"
                                                 "#include <CLI/CLI.hpp>\n"})
        self.assertEqual(code, 1)
        self.assertIn("src/server/a.cc:1: layer 'server' includes <engine/graph/graph.h>", out)
        self.assertNotIn("a.cc:2:", out)
        self.assertNotIn("a.cc:3:", out)

    def test_a_bare_include_of_a_front_end_is_a_file_of_its_own_folder(self):
        files = {"src/cli/a.cc": '#include "cli.h"\n#include "graph.h"\n',
                 "src/cli/cli.h": "int c;\n",
                 "src/engine/graph/graph.h": "int g;\n"}
        code, out = run_lint(files, lint_only=["src/cli/a.cc"])
        self.assertEqual(code, 1)
        self.assertIn("src/cli/a.cc:2: layer 'cli' includes \"graph.h\", which is not a file of "
                      "src/cli/", out)
        self.assertNotIn("a.cc:1:", out)

    def test_the_listed_bare_include_of_a_front_end_test_is_allowed(self):
        code, out = run_lint({"src/server/server_policy_test.cc": '#include "corpus_for_tests.h"\n'})
        self.assertEqual((code, out), (0, ""))

    def test_an_operation_may_not_call_a_publish_entry_point(self):
        text = ("Status Load(Stream* stream, Stream& s) {\n"
                "  auto a = stream->Publish(request);\n"
                "  auto b = commit::RunPublishLoop(s, base, loop);\n"
                "  auto c = s.TryPublish(base, prepared, meta);\n"
                "  auto d = commit::CreateMainStream(rt, genesis, actor);\n"
                "  return Status::Ok();\n}\n")
        code, out = run_lint({"src/engine/ops/load.cc": text, "src/cluster/apply.cc": text})
        self.assertEqual(code, 1)
        for path in ("src/engine/ops/load.cc", "src/cluster/apply.cc"):
            for line, name in ((2, "->Publish"), (3, "RunPublishLoop"), (4, "TryPublish"),
                               (5, "CreateMainStream")):
                self.assertIn(f"{path}:{line}: calls a publish entry point ({name})", out)

    def test_the_write_path_may_publish_and_look_alikes_are_not_calls(self):
        files = {
            "src/engine/write/write.cc": "auto r = commit::RunPublishLoop(*stream, head, loop);\n",
            "src/engine/ops/merge.cc": "auto r = commit::RunPublishLoop(*stream, head, loop);\n",
            "src/engine/ops/load_test.cc": "auto r = stream->Publish(request);\n",
            "src/engine/ops/load.cc": ("// never stream->Publish(request) here\n"
                                   "const char* k = \"RunPublishLoop(\";\n"
                                   "bool p = fence.Published();\n"
                                   "auto b = graph.PublishBatch(members);\n"
                                   "Result<PublishResult> Publish(const PublishRequest& r);\n"),
        }
        code, out = run_lint(files)
        self.assertEqual((code, out), (0, ""))


    def test_a_listed_publisher_that_no_longer_publishes_is_a_stale_entry(self):
        files = {"src/engine/write/write.cc": "auto r = Stage(request);\n",
                 "src/engine/ops/merge.cc": "auto r = commit::RunPublishLoop(*stream, head, loop);\n"}
        code, out = run_lint(files)
        self.assertEqual(code, 1)
        self.assertIn("src/engine/write/write.cc:1: listed in PUBLISHERS (scripts/lint_code.py) but "
                      "calls no publish entry point", out)
        self.assertNotIn("merge.cc", out)


class BannedCallTest(unittest.TestCase):
    def test_direct_clock_thread_and_sleep_calls_in_library_code(self):
        code, out = run_lint({"src/engine/a.cc": "auto t = std::chrono::steady_clock::now();\n"
                                                 "std::thread th(f);\n"})
        self.assertEqual(code, 1)
        self.assertIn("src/engine/a.cc:1: direct time", out)
        self.assertIn("src/engine/a.cc:2: direct time", out)

    def test_clock_and_entropy_sources_outside_base_storage_testing(self):
        files = {"src/engine/q.cc": "int64_t n = SystemClock::Default()->NowMillis();\n"
                                    "std::mt19937 gen(1);\nauto t = time(nullptr);\n",
                 "src/storage/s.cc": "clock_ = clock ? clock : SystemClock::Default();\n",
                 "src/base/c.cc": "auto t = std::chrono::system_clock::now();\n"}
        code, out = run_lint(files)
        self.assertEqual(code, 1)
        for line in (1, 2, 3):
            self.assertIn(f"src/engine/q.cc:{line}: a clock or entropy source", out)
        self.assertNotIn("src/storage", out)
        self.assertNotIn("src/base", out)

    def test_names_in_comments_and_strings_are_not_calls(self):
        code, out = run_lint({"src/engine/a.cc": '// never std::thread here\n'
                                                 'const char* k = "SystemClock";\n'})
        self.assertEqual((code, out), (0, ""))


if __name__ == "__main__":
    unittest.main()
