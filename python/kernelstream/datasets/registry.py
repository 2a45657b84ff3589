"""Every real dataset the papers use, in one table: where it comes from and how to check it.

Two kinds of entries:

* **release** files: the project's converted ``NAME.csv.gz`` files (format in
  ``docs/data.md``), downloaded as they are from the data release (or from
  ``$KERNELSTREAM_DATA_URL``) and checked against the sha256 below;
* **upstream** sets that the release does not hold (SUSY, year, slice, the cod-rna test
  split): downloaded from their public archive (LIBSVM or UCI) and converted here into the
  same ``NAME.csv.gz`` format. The archives publish no checksums we could pin, so these
  are checked by their shape (``rows`` x ``features``) after conversion.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Where the project publishes its converted files (``NAME.csv.gz`` assets); overridden by
#: ``$KERNELSTREAM_DATA_URL`` or ``fetch(..., base_url=...)``.
DEFAULT_BASE_URL = "https://github.com/kernelstream/kernelstream-data/releases/download/v1/"

LIBSVM = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/"
UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases/"


@dataclass(frozen=True)
class Upstream:
    """A public source file and how to turn it into ``NAME.csv.gz``.

    ``kind``: ``"libsvm"`` (sparse ``label idx:value`` lines; ``.bz2``/``.xz``/``.gz`` or
    plain), or ``"csv"`` (comma-separated; ``header`` says whether the first line names the
    columns; ``target`` is the target column's index; ``member`` the file inside a zip).
    """

    url: str
    kind: str
    n_features: int | None = None
    header: bool = False
    target: int = -1
    member: str | None = None


@dataclass(frozen=True)
class Dataset:
    name: str
    rows: int
    features: int
    task: str
    description: str
    #: the ``kernelstream reproduce`` entries that read it
    used_by: tuple = ()
    #: sha256 of the converted ``NAME.csv.gz`` (release files only)
    sha256: str | None = None
    #: public sources, concatenated in this order (upstream sets only)
    upstream: tuple = field(default_factory=tuple)

    @property
    def filename(self) -> str:
        return f"{self.name}.csv.gz"

    @property
    def origin(self) -> str:
        return "release" if self.sha256 else "upstream"


def _release(name, rows, features, task, description, sha256, used_by):
    return Dataset(name, rows, features, task, description, used_by, sha256=sha256)


def _upstream(name, rows, features, task, description, used_by, *sources):
    return Dataset(name, rows, features, task, description, used_by, upstream=sources)


_ALL = [
    _release(
        "airfoil", 1503, 5, "regression", "UCI airfoil self-noise",
        "7f622d741324e18f9ef07960d400ecc532796a8596cdbfd6bfc4e5d0734f94c8", ("vaw2-table2",),
    ),
    _release(
        "bias", 7752, 21, "regression", "UCI bias correction of temperature forecasts (Next_Tmin; has missing values)",
        "7825b4326549761bf6c62a051bb9b2242eb8d8e38ec9334e4d9d59614650797a", ("vaw2-table2",),
    ),
    _release(
        "cadata", 20640, 8, "regression", "StatLib California housing (LIBSVM cadata column order)",
        "f5b4980548b3aa5b6978c2c174596965fe59ffc012ee692c38159cedd03f4adb", ("pros-n-kons-table1",),
    ),
    _release(
        "casp", 45730, 9, "regression", "UCI protein tertiary structure (CASP), RMSD target",
        "128d54fd1ce1d5c482b3b8d285ab22270f04cd0cbda2794d2160b8929b63021b",
        ("pkawv-fig4", "taylor-casp", "pros-n-kons-table1"),
    ),
    _release(
        "cod-rna", 59535, 8, "classification", "LIBSVM cod-rna, training split",
        "993d1b784d5febb3772b782445a6e4147481a9173d9a934c7d6679ff36fed1d5",
        ("pkawv-fig2", "pros-n-kons-table2"),
    ),
    _release(
        "concrete", 1030, 8, "regression", "UCI concrete compressive strength",
        "4556b4f7b90797721684b5a8cc22097ef531f88d5c2ef55ae51cb62b631ef603", ("vaw2-table2",),
    ),
    _release(
        "cpusmall", 8192, 12, "regression", "LIBSVM cpusmall (unscaled)",
        "d3feb60627990b8f89207d7db258edadf208da929e6ed8eec02d0aa715938aaf", ("pros-n-kons-table1",),
    ),
    _release(
        "ijcnn1", 141691, 22, "classification", "LIBSVM ijcnn1, training then test rows",
        "452d4d08262d5636ed2458a69861ed2570c947a5a6341fb02bbf570c2c05e6f0",
        ("pkawv-fig4", "pros-n-kons-table2"),
    ),
    _release(
        "naval", 11934, 17, "regression", "UCI naval propulsion plant (lever position target)",
        "57f079367dadff02ec178cc4068116851e0bd46e6f3e763896b4a076cd90d372", ("vaw2-table2",),
    ),
    _release(
        "parkinson", 5875, 20, "regression", "UCI Parkinson telemonitoring (total_UPDRS)",
        "a05e486c0b84f022d80c675d52d8ead01faa186b0cfcb69692b66db287d67824", ("pros-n-kons-table1",),
    ),
    _upstream(
        "cod-rna-test", 271617, 8, "classification",
        "LIBSVM cod-rna.t, the test split (the cod-rna size of the PKAWV and PROS-N-KONS papers)",
        (),
        Upstream(LIBSVM + "binary/cod-rna.t", "libsvm", n_features=8),
    ),
    _upstream(
        "slice", 53500, 385, "regression",
        "UCI relative location of CT slices (x0 = patientId, target = reference; PROS-N-KONS Table 1)",
        (),
        Upstream(
            UCI + "00206/slice_localization_data.zip", "csv", header=True, target=-1,
            member="slice_localization_data.csv",
        ),
    ),
    _upstream(
        "susy", 5000000, 18, "classification", "UCI SUSY (labels 0/1 as published)",
        ("pkawv-fig2",),
        Upstream(UCI + "00279/SUSY.csv.gz", "csv", header=False, target=0),
    ),
    _upstream(
        "year", 463715, 90, "regression",
        "LIBSVM YearPredictionMSD, training split (PROS-N-KONS Table 1)",
        (),
        Upstream(LIBSVM + "regression/YearPredictionMSD.bz2", "libsvm", n_features=90),
    ),
]  # fmt: skip

#: name -> :class:`Dataset`, for every dataset the papers use.
DATASETS = {d.name: d for d in _ALL}


def get(name: str) -> Dataset:
    """The registry entry of ``name``; :class:`~kernelstream.InputError` naming the known ones."""
    from ..errors import InputError

    try:
        return DATASETS[name]
    except KeyError:
        raise InputError(
            f"unknown dataset {name!r}; known: {', '.join(sorted(DATASETS))}"
        ) from None
