# install() rules and two .deb packages (CPack, one component each):
# - meshscope: the headless CLI (plan, serve, simulate, replay, export, relay) and meshscope-probe for head
#   nodes and training nodes, and the Python attach package under /usr/share/meshscope/python (put on
#   PYTHONPATH by the user,
#   never installed as a system-wide sitecustomize).
# - meshscope-dashboard: the desktop window, its .desktop entry and icon; depends on meshscope.
include(GNUInstallDirs)

install(TARGETS meshscope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT headless)
install(TARGETS meshscope-probe RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT headless)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/clients/python/meshscope_report ${PROJECT_SOURCE_DIR}/clients/python/autoattach
        DESTINATION ${CMAKE_INSTALL_DATADIR}/meshscope/python COMPONENT headless
        PATTERN "__pycache__" EXCLUDE PATTERN "*.pyc" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/README.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/meshscope COMPONENT headless)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/meshscope COMPONENT headless
        PATTERN "images" EXCLUDE)

if(TARGET meshscope-dashboard)
  install(TARGETS meshscope-dashboard RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT dashboard)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/meshscope-dashboard.desktop
          DESTINATION ${CMAKE_INSTALL_DATADIR}/applications COMPONENT dashboard)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/meshscope.svg
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps COMPONENT dashboard)
endif()

set(CPACK_PACKAGE_NAME meshscope)
set(CPACK_PACKAGE_VENDOR "MeshScope")
set(CPACK_PACKAGE_CONTACT "MeshScope developers <meshscope@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # dependencies from the binaries' real links (dpkg-shlibdeps)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_HEADLESS_PACKAGE_NAME meshscope)
set(CPACK_DEBIAN_HEADLESS_PACKAGE_SUGGESTS "python3")
set(CPACK_DEBIAN_DASHBOARD_PACKAGE_NAME meshscope-dashboard)
set(CPACK_DEBIAN_DASHBOARD_PACKAGE_DEPENDS "meshscope (= ${PROJECT_VERSION}), qml6-module-qtquick, qml6-module-qtquick-controls, qml6-module-qtquick-layouts, qml6-module-qtquick-shapes, qml6-module-qtquick-window, qml6-module-qtquick-templates, qml6-module-qtqml-workerscript, qml6-module-qtqml-models, qml6-module-qtquick-dialogs, qml6-module-qt-labs-settings, qml6-module-qtcore")
set(CPACK_COMPONENTS_ALL headless)
if(TARGET meshscope-dashboard)
  list(APPEND CPACK_COMPONENTS_ALL dashboard)
endif()
include(CPack)
