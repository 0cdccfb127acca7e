#!/usr/bin/env python3
"""Writes debian/copyright (DEP-5) from Cargo.lock: our code, every crate `cargo vendor`
puts in vendor/ (with `--versioned-dirs`), and the C libraries bundled inside some of them.
`scripts/check-packaging.sh` regenerates it and fails when the committed file is stale.
Usage: deb-copyright.py [OUT] (default: stdout)."""
import json
import subprocess
import sys

def metadata():
    """Every package of Cargo.lock, all targets included. Offline first; a fresh machine has
    only the crates its own builds downloaded (not, say, those only Windows or UEFI targets
    use), and then cargo fetches the rest of the manifests."""
    cmd = ["cargo", "metadata", "--format-version", "1", "--locked"]
    try:
        return subprocess.check_output(cmd + ["--offline"], text=True, stderr=subprocess.DEVNULL)
    except subprocess.CalledProcessError:
        return subprocess.check_output(cmd, text=True)

meta = json.loads(metadata())

def dep5(expr):
    expr = (expr or "UNKNOWN").replace("/", " OR ").replace("(", "").replace(")", "")
    expr = expr.replace(" WITH LLVM-exception", " with LLVM exception")
    return expr.replace(" OR ", " or ").replace(" AND ", " and ")

out = ["""Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: blosc2-rs
Source: https://www.blosc.org/
Comment: vendor/ is created by `make deb` (cargo vendor --versioned-dirs) from Cargo.lock;
 this file is generated from the same lock file by scripts/deb-copyright.py.

Files: *
Copyright: 2026 libblosc2-rs developers
License: BSD-3-Clause
"""]
for p in sorted(meta["packages"], key=lambda p: (p["name"], p["version"])):
    if p["source"] is None:
        continue
    authors = ", ".join(a.split(" <")[0] for a in p.get("authors") or []) or "the %s authors" % p["name"]
    out.append("Files: vendor/%s-%s/*\nCopyright: %s\nLicense: %s\n" % (
        p["name"], p["version"], authors, dep5(p["license"])))
    name, ver = p["name"], p["version"]
    bundled = {
        "lz4-sys": [("liblz4/*", "2011-2024 Yann Collet", "GPL-2+"),
                    ("liblz4/lib/*", "2011-2024 Yann Collet", "BSD-2-Clause")],
        "zstd-sys": [("zstd/*", "2016-present Meta Platforms, Inc. and affiliates", "BSD-3-Clause or GPL-2")],
        "libz-sys": [("src/zlib/*", "1995-2024 Jean-loup Gailly and Mark Adler", "Zlib"),
                     ("src/zlib-ng/*", "1995-2024 Jean-loup Gailly, Mark Adler and the zlib-ng contributors", "Zlib")],
        "libdeflate-sys": [("libdeflate/*", "2016 Eric Biggers, 2024 Google LLC", "MIT")],
        "zfp-sys": [("zfp/*", "2014-2023 Lawrence Livermore National Security, LLC", "BSD-3-Clause")],
    }.get(name, [])
    for pattern, copyright, lic in bundled:
        out.append("Files: vendor/%s-%s/%s\nCopyright: %s\nLicense: %s\n" % (name, ver, pattern, copyright, lic))

BSD_CONDITIONS = """ Redistribution and use in source and binary forms, with or without modification,
 are permitted provided that the following conditions are met:
 .
 1. Redistributions of source code must retain the above copyright notice, this
    list of conditions and the following disclaimer.
 2. Redistributions in binary form must reproduce the above copyright notice,
    this list of conditions and the following disclaimer in the documentation
    and/or other materials provided with the distribution."""
BSD_CLAUSE_3 = """
 3. Neither the name of the copyright holder nor the names of its contributors
    may be used to endorse or promote products derived from this software
    without specific prior written permission."""
BSD_DISCLAIMER = """
 .
 THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND
 ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED
 WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
 DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE FOR
 ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES
 (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES;
 LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON
 ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT
 (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS
 SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE."""

texts = {
    "BSD-3-Clause": BSD_CONDITIONS + BSD_CLAUSE_3 + BSD_DISCLAIMER,
    "BSD-2-Clause": BSD_CONDITIONS + BSD_DISCLAIMER,
    "MIT": """ Permission is hereby granted, free of charge, to any person obtaining a copy of
 this software and associated documentation files (the "Software"), to deal in
 the Software without restriction, including without limitation the rights to
 use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of
 the Software, and to permit persons to whom the Software is furnished to do so,
 subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included in all
 copies or substantial portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS
 FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR
 COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER
 IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN
 CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.""",
    "Apache-2.0": """ On Debian systems, the complete text of the Apache License, Version 2.0 can be
 found in "/usr/share/common-licenses/Apache-2.0".""",
    "Apache-2.0 with LLVM exception": """ The Apache License, Version 2.0 (on Debian systems in
 "/usr/share/common-licenses/Apache-2.0"), with the LLVM exception:
 .
 As an exception, if, as a result of your compiling your source code, portions of
 this Software are embedded into an Object form of such source code, you may
 redistribute such embedded portions in such Object form without complying with
 the conditions of Sections 4(a), 4(b) and 4(d) of the License.
 .
 In addition, if you combine or link compiled forms of this Software with
 software that is licensed under the GPLv2 ("Combined Software") and if a court of
 competent jurisdiction determines that the patent provision (Section 3), the
 indemnity provision (Section 9) or other Section of the License conflicts with the
 conditions of the GPLv2, you may retroactively and prospectively choose to deem
 waived or otherwise exclude such Section(s) of the License, but only in their
 entirety and only with respect to the Combined Software.""",
    "MPL-2.0": """ On Debian systems, the complete text of the Mozilla Public License 2.0 can be
 found in "/usr/share/common-licenses/MPL-2.0".""",
    "LGPL-2.1+": """ On Debian systems, the complete text of the GNU Lesser General Public License
 version 2.1 can be found in "/usr/share/common-licenses/LGPL-2.1".""",
    "GPL-2": """ On Debian systems, the complete text of the GNU General Public License version 2
 can be found in "/usr/share/common-licenses/GPL-2".""",
    "GPL-2+": """ This program is free software; you can redistribute it and/or modify it under
 the terms of the GNU General Public License as published by the Free Software
 Foundation; either version 2 of the License, or (at your option) any later version.
 .
 On Debian systems, the complete text of the GNU General Public License version 2
 can be found in "/usr/share/common-licenses/GPL-2".""",
    "Zlib": """ This software is provided 'as-is', without any express or implied warranty. In
 no event will the authors be held liable for any damages arising from the use of
 this software.
 .
 Permission is granted to anyone to use this software for any purpose, including
 commercial applications, and to alter it and redistribute it freely, subject to
 the following restrictions:
 .
 1. The origin of this software must not be misrepresented; you must not claim
    that you wrote the original software. If you use this software in a product,
    an acknowledgment in the product documentation would be appreciated but is
    not required.
 2. Altered source versions must be plainly marked as such, and must not be
    misrepresented as being the original software.
 3. This notice may not be removed or altered from any source distribution.""",
    "ISC": """ Permission to use, copy, modify, and/or distribute this software for any purpose
 with or without fee is hereby granted, provided that the above copyright notice
 and this permission notice appear in all copies.
 .
 THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES WITH
 REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF MERCHANTABILITY AND
 FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR ANY SPECIAL, DIRECT,
 INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES WHATSOEVER RESULTING FROM LOSS
 OF USE, DATA OR PROFITS, WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE OR OTHER
 TORTIOUS ACTION, ARISING OUT OF OR IN CONNECTION WITH THE USE OR PERFORMANCE OF
 THIS SOFTWARE.""",
    "Unlicense": """ This is free and unencumbered software released into the public domain.
 .
 Anyone is free to copy, modify, publish, use, compile, sell, or distribute this
 software, either in source code form or as a compiled binary, for any purpose,
 commercial or non-commercial, and by any means.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND.""",
    "Unicode-3.0": """ Permission is hereby granted, free of charge, to any person obtaining a copy of
 data files and any associated documentation (the "Data Files") or software and
 any associated documentation (the "Software") to deal in the Data Files or
 Software without restriction, including without limitation the rights to use,
 copy, modify, merge, publish, distribute, and/or sell copies of the Data Files or
 Software, and to permit persons to whom the Data Files or Software are furnished
 to do so, provided that either (a) this copyright and permission notice appear
 with all copies of the Data Files or Software, or (b) this copyright and
 permission notice appear in associated Documentation.
 .
 THE DATA FILES AND SOFTWARE ARE PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND.""",
}
for name in sorted(texts):
    out.append("License: %s\n%s\n" % (name, texts[name]))
text = "\n".join(out).replace("LGPL-2.1-or-later", "LGPL-2.1+")
if len(sys.argv) > 1:
    open(sys.argv[1], "w").write(text)
else:
    sys.stdout.write(text)
