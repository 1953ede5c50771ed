"""`pip install ./bindings/python` works offline, carries the library, and
the installed package plans without KVBUDGET_LIBRARY or the source tree."""

import os
import re
import subprocess
import sys
import tempfile
import unittest

import support

import kvbudget


def have_pip():
    r = subprocess.run([sys.executable, "-m", "pip", "--version"],
                       capture_output=True, text=True)
    return r.returncode == 0


@unittest.skipIf(support.SANITIZED,
                 "the sanitizer build is not a library to install")
@unittest.skipUnless(have_pip(), "pip is not installed (Debian: apt-get "
                     "install python3-pip)")
class TestInstall(unittest.TestCase):

    def test_pip_install_offline(self):
        lib = kvbudget.library_path()
        with tempfile.TemporaryDirectory(dir=support.TMP) as d:
            target = os.path.join(d, "site")
            env = dict(os.environ)
            env.update({
                "KVBUDGET_LIBRARY": lib,  # the library the wheel carries
                "PIP_NO_INDEX": "1", "PIP_NO_CACHE_DIR": "1",
                "PIP_DISABLE_PIP_VERSION_CHECK": "1",
                # any network access would fail
                "HTTP_PROXY": "http://127.0.0.1:9",
                "HTTPS_PROXY": "http://127.0.0.1:9",
            })
            env.pop("PYTHONPATH", None)
            r = subprocess.run(
                [sys.executable, "-m", "pip", "install", "--target", target,
                 support.BINDINGS], env=env, capture_output=True, text=True,
                timeout=240)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            pkg = os.path.join(target, "kvbudget")
            self.assertTrue(os.path.isfile(os.path.join(pkg, "py.typed")))
            self.assertTrue(os.path.isfile(os.path.join(pkg,
                                                        "libkvbudget.so.0")))
            # the source tree must not be touched by the build
            self.assertFalse(os.path.exists(os.path.join(support.BINDINGS,
                                                         "build")))
            del env["KVBUDGET_LIBRARY"]
            env["PYTHONPATH"] = target
            code = ("import kvbudget\n"
                    "print(kvbudget.library_path())\n"
                    "print(kvbudget.plan('llama-3.1-8b', 'awq-4', "
                    "kvbudget.presets.gpus()[0].name, max_model_len=32768)"
                    ".fits)\n"
                    "print(kvbudget.__file__)\n")
            r = subprocess.run([sys.executable, "-c", code], env=env,
                               cwd=d, capture_output=True, text=True,
                               timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr)
            lines = r.stdout.split()
            self.assertEqual(lines[0], os.path.join(pkg, "libkvbudget.so.0"))
            self.assertTrue(lines[2].startswith(pkg))



class TestVersions(unittest.TestCase):

    def test_versions_agree(self):
        """pyproject, _version.py and the header name one version."""
        with open(os.path.join(support.BINDINGS, "pyproject.toml")) as f:
            py = re.search(r'^version = "([^"]+)"', f.read(), re.M).group(1)
        with open(support.HEADER) as f:
            c = re.search(r'#define KVB_VERSION_STRING "([^"]+)"',
                          f.read()).group(1)
        self.assertEqual(py, kvbudget.__version__)
        self.assertEqual(c, kvbudget.__version__)


if __name__ == "__main__":
    unittest.main()
