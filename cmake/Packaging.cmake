# The Debian package (docs/packaging.md): what `cmake --install` adds for the desktop and for
# Debian (menu entry, icon, AppStream metadata, MIME type, manual pages, bash completion,
# copyright and changelog) and CPack's DEB settings; `bash scripts/nnwb.sh package` runs cpack
# in the Release build and writes build/nnwb_VERSION_amd64.deb. Included by the top
# CMakeLists.txt after app/ (nnwb-cli generates its manual page and completion).

set(NNWB_PACKAGE_MAINTAINER
    "nnwb maintainers <maintainers@users.noreply.a-seed-80eebe47.example>"
    CACHE STRING "The Maintainer field of the Debian package (and its changelog entry)")
# AppStream wants the reverse-DNS of a domain the project controls and an http(s) screenshot;
# nnwb has neither yet (no homepage), so both are marked placeholders (.invalid) to set here.
set(NNWB_APPSTREAM_ID "invalid.nnwb.workbench"
    CACHE STRING "The AppStream component id (reverse DNS of the project's domain)")
set(NNWB_APPSTREAM_SCREENSHOT_URL "https://nnwb.invalid/screenshot.png"
    CACHE STRING "The AppStream screenshot's address (docs/screenshot.png, published)")
# The release's date: the changelog's and AppStream's (fixed per version, so builds repeat).
set(NNWB_RELEASE_DATE "2026-11-28")
set(NNWB_RELEASE_DATE_RFC2822 "Sat, 28 Nov 2026 00:00:00 +0000")

set(pkg_src "${PROJECT_SOURCE_DIR}/resources/packaging")
set(pkg_out "${PROJECT_BINARY_DIR}/packaging")
file(MAKE_DIRECTORY "${pkg_out}")
configure_file("${pkg_src}/nnwb.metainfo.xml.in" "${pkg_out}/${NNWB_APPSTREAM_ID}.metainfo.xml"
               @ONLY)
configure_file("${pkg_src}/changelog.in" "${pkg_out}/changelog" @ONLY)

# Generated at build time from nnwb-cli's CLI11 definitions (`help-man`, `help-completion`), so
# the manual page and the completion never drift from --help; Debian wants both gzip -9n'd
# pages and changelogs (no name or time stamp in the header, so the package repeats).
find_program(NNWB_GZIP gzip REQUIRED)
add_custom_command(
  OUTPUT "${pkg_out}/nnwb-cli.1.gz" "${pkg_out}/nnwb.1.gz" "${pkg_out}/changelog.gz"
         "${pkg_out}/nnwb-cli.bash-completion"
  COMMAND sh -c "\"$1\" help-man > \"$2/nnwb-cli.1\" && \"$1\" help-completion > \"$2/nnwb-cli.bash-completion\""
          sh "$<TARGET_FILE:nnwb-cli>" "${pkg_out}"
  COMMAND "${NNWB_GZIP}" -9nf "${pkg_out}/nnwb-cli.1"
  COMMAND sh -c "\"$1\" -9n -c \"$2\" > \"$4/nnwb.1.gz\" && \"$1\" -9n -c \"$3\" > \"$4/changelog.gz\""
          sh "${NNWB_GZIP}" "${pkg_src}/nnwb.1" "${pkg_out}/changelog" "${pkg_out}"
  DEPENDS nnwb-cli "${pkg_src}/nnwb.1" "${pkg_out}/changelog"
  COMMENT "Generating nnwb-cli(1) and the bash completion from nnwb-cli's definitions"
  VERBATIM)
add_custom_target(nnwb_cli_docs ALL
  DEPENDS "${pkg_out}/nnwb-cli.1.gz" "${pkg_out}/nnwb-cli.bash-completion")

install(FILES "${pkg_src}/nnwb.desktop" DESTINATION "${CMAKE_INSTALL_DATADIR}/applications")
install(FILES "${pkg_src}/nnwb.svg"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps")
install(FILES "${pkg_out}/${NNWB_APPSTREAM_ID}.metainfo.xml"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/metainfo")
install(FILES "${pkg_src}/nnwb-mime.xml" DESTINATION "${CMAKE_INSTALL_DATADIR}/mime/packages"
        RENAME nnwb.xml)
install(FILES "${pkg_out}/nnwb-cli.1.gz" "${pkg_out}/nnwb.1.gz"
        DESTINATION "${CMAKE_INSTALL_MANDIR}/man1")
install(FILES "${pkg_out}/nnwb-cli.bash-completion"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/bash-completion/completions" RENAME nnwb-cli)
install(FILES "${pkg_src}/copyright" "${pkg_out}/changelog.gz"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/nnwb")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME nnwb)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "${NNWB_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${NNWB_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Neural Network Workbench for market price data")
set(CPACK_PACKAGE_DESCRIPTION
    "nnwb trains attention-family neural networks (MQL5 fractal attention
stacks, multi-head attention, GPT blocks, lightweight convolutions) on
market price bars exported from MetaTrader 5 or 4, on the CPU or any
OpenCL device. The window edits the layer stack, trains with live curves
and attention heatmaps, compares experiments, keeps a run store,
validates walk-forward with trading figures and runs hyper-parameter
sweeps; nnwb-cli does the same headless. Presets, a default experiment,
EURUSD H1 bars and example sweep specs are included.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # nnwb_VERSION_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Depends: the libraries' packages from dpkg-shlibdeps, the OpenCL ICD loader among them
# (libOpenCL.so.1: "ocl-icd-libopencl1 | libopencl-1.1-1 | libopencl1", any loader will do;
# naming it again here made CPack write it twice). Recommends PoCL: with it a machine without
# a GPU driver still has an OpenCL device. package_deb.sh checks both fields.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "pocl-opencl-icd")
set(CPACK_OUTPUT_FILE_PREFIX "${PROJECT_BINARY_DIR}")
include(CPack)
