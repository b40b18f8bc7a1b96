"""The one bibliography: every paper gpusim cites, by key.

The registry's ``paper`` field (:mod:`gpusim.runtime.registry`) names its papers by these keys; ``gpusim
algorithms``, the kernel pages and ``docs/references.rst`` (generated from :func:`references_rst`, and
checked against it by the tests) show them as citations: authors, title, venue, year and a DOI or URL.

>>> cite("deveci2013apfb").short
'Deveci et al., Euro-Par 2013'
>>> print(cite("blondel2008").full)            # doctest: +NORMALIZE_WHITESPACE
V. D. Blondel, J.-L. Guillaume, R. Lambiotte, E. Lefebvre. Fast unfolding of communities in large networks.
Journal of Statistical Mechanics: Theory and Experiment, 2008(10), P10008, 2008.
https://doi.org/10.1088/1742-5468/2008/10/P10008
>>> cite("Deveci et al. (Euro-Par 2013)")
Traceback (most recent call last):
gpusim.errors.InvalidArgument: no reference 'Deveci et al. (Euro-Par 2013)'; the keys are ...
"""

from __future__ import annotations

from dataclasses import dataclass

from gpusim.errors import InvalidArgument

__all__ = ["REFERENCES", "Reference", "cite", "citations", "references_rst"]


@dataclass(frozen=True)
class Reference:
    """One work: its authors (as printed: initials and surname), title, venue, year, and a DOI or URL."""

    key: str
    authors: tuple[str, ...]
    title: str
    venue: str
    year: int
    doi: str = ""
    url: str = ""

    @property
    def link(self) -> str:
        """``https://doi.org/DOI``, or the URL where there is no DOI."""
        return f"https://doi.org/{self.doi}" if self.doi else self.url

    @property
    def short(self) -> str:
        """``Surname et al., VENUE YEAR`` (one or two authors by name): what a line of text cites."""
        names = [author.split()[-1] for author in self.authors]
        who = names[0] if len(names) == 1 else " and ".join(names) if len(names) == 2 else f"{names[0]} et al."
        venue = self.venue.split(",")[0] if len(self.venue.split(",")[0]) <= 12 else ""
        return f"{who}, {venue} {self.year}" if venue else f"{who} {self.year}"

    @property
    def full(self) -> str:
        """The whole citation on one line: authors. Title. Venue, year. DOI or URL."""
        return f"{', '.join(self.authors)}. {self.title}. {self.venue}, {self.year}. {self.link}"


_ALL = [
    Reference("deveci2013apfb", ("M. Deveci", "K. Kaya", "B. Uçar", "Ü. V. Çatalyürek"),
              "GPU accelerated maximum cardinality matching algorithms for bipartite graphs",
              "Euro-Par, LNCS 8097, pp. 850-861, Springer", 2013, doi="10.1007/978-3-642-40047-6_84"),
    Reference("deveci2013gpr", ("M. Deveci", "K. Kaya", "B. Uçar", "Ü. V. Çatalyürek"),
              "A push-relabel-based maximum cardinality bipartite matching algorithm on GPUs",
              "ICPP, 42nd International Conference on Parallel Processing, pp. 21-29, IEEE", 2013,
              doi="10.1109/ICPP.2013.11"),
    Reference("hovland2020", ("N. H. Hovland",), "Maximum weighted matching on a GPU",
              "MSc thesis, Department of Informatics, University of Bergen", 2020,
              url="https://9pdf.net/document/q2n6v2pj-maximumweightedmatchingonagpu-"
                  "universityofbergendepartmentofinformatics.html"),
    Reference("naim2017thesis", ("M. Naim",), "Parallel matching and clustering algorithms on GPUs",
              "PhD thesis, University of Bergen", 2017, url="https://hgpu.org/?p=17682"),
    Reference("naim2015suitor", ("M. Naim", "F. Manne", "M. Halappanavar", "A. Tumeo", "J. Langguth"),
              "Optimizing approximate weighted matching on Nvidia Kepler K40",
              "HiPC, IEEE 22nd International Conference on High Performance Computing, pp. 105-114", 2015,
              doi="10.1109/HiPC.2015.15"),
    Reference("naim2017louvain", ("M. Naim", "F. Manne", "M. Halappanavar", "A. Tumeo"),
              "Community detection on the GPU",
              "IPDPS, IEEE International Parallel and Distributed Processing Symposium, pp. 625-634", 2017,
              doi="10.1109/IPDPS.2017.16"),
    Reference("manne2016stable", ("F. Manne", "M. Naim", "H. Lerring", "M. Halappanavar"),
              "On stable marriages and greedy matchings",
              "CSC, Seventh SIAM Workshop on Combinatorial Scientific Computing, pp. 92-101", 2016,
              doi="10.1137/1.9781611974690.ch10"),
    Reference("naim2017bmatching", ("M. Naim", "F. Manne"), "Scalable b-matching on GPUs",
              "in M. Naim's PhD thesis (Naim and Manne (2017)), University of Bergen", 2017, url="https://hgpu.org/?p=17682"),
    Reference("khan2016bsuitor", ("A. Khan", "A. Pothen", "M. M. A. Patwary", "N. R. Satish", "N. Sundaram",
                                  "F. Manne", "M. Halappanavar", "P. Dubey"),
              "Efficient approximation algorithms for weighted b-matching",
              "SIAM Journal on Scientific Computing 38(5), pp. S593-S619", 2016, doi="10.1137/15M1026304"),
    Reference("blondel2008", ("V. D. Blondel", "J.-L. Guillaume", "R. Lambiotte", "E. Lefebvre"),
              "Fast unfolding of communities in large networks",
              "Journal of Statistical Mechanics: Theory and Experiment, 2008(10), P10008", 2008,
              doi="10.1088/1742-5468/2008/10/P10008"),
    Reference("hopcroft1973", ("J. E. Hopcroft", "R. M. Karp"),
              "An n^(5/2) algorithm for maximum matchings in bipartite graphs",
              "SIAM Journal on Computing 2(4), pp. 225-231", 1973, doi="10.1137/0202019"),
    Reference("pothen1990", ("A. Pothen", "C.-J. Fan"), "Computing the block triangular form of a sparse matrix",
              "ACM Transactions on Mathematical Software 16(4), pp. 303-324", 1990, doi="10.1145/98267.98287"),
    Reference("duff2011", ("I. S. Duff", "K. Kaya", "B. Uçar"),
              "Design, implementation, and analysis of maximum transversal algorithms",
              "ACM Transactions on Mathematical Software 38(2), article 13", 2011, doi="10.1145/2049673.2049677"),
    Reference("drake2003", ("D. E. Drake", "S. Hougardy"),
              "A simple approximation algorithm for the weighted matching problem",
              "Information Processing Letters 85(4), pp. 211-213", 2003, doi="10.1016/S0020-0190(02)00393-9"),
    Reference("maue2007", ("J. Maue", "P. Sanders"), "Engineering algorithms for approximate weighted matching",
              "WEA, 6th Workshop on Experimental Algorithms, LNCS 4525, pp. 242-255, Springer", 2007,
              doi="10.1007/978-3-540-72845-0_19"),
]

#: Every reference, by key.
REFERENCES: dict[str, Reference] = {reference.key: reference for reference in _ALL}


def cite(key: str) -> Reference:
    """The reference ``key``; an unknown key is an ``InvalidArgument`` naming the keys."""
    if key not in REFERENCES:
        raise InvalidArgument(f"no reference {key!r}; the keys are {', '.join(REFERENCES)}")
    return REFERENCES[key]


def citations(keys: str | tuple[str, ...]) -> list[Reference]:
    """The references of one key or of several."""
    return [cite(key) for key in ((keys,) if isinstance(keys, str) else keys)]


def references_rst() -> str:
    """The text of ``docs/references.rst``: every reference, with an anchor ``ref-KEY`` to link to."""
    lines = [".. generated from gpusim/runtime/references.py (tests/test_references.py checks it): do not edit", "",
             "References", "==========", "",
             "Every paper gpusim cites: the registry's algorithms (``gpusim algorithms``), the kernel pages and the "
             "tutorials refer to these.  The algorithm and section numbers cited for the HiPC 2015, IPDPS 2017 and "
             "CSC 2016 papers are those of their reprints in Naim's PhD thesis (2017).", ""]
    for reference in _ALL:
        lines += [f".. _ref-{reference.key}:", "",
                  f"**{reference.short}** --- {', '.join(reference.authors)}. *{reference.title}*. "
                  f"{reference.venue}, {reference.year}. `{reference.link} <{reference.link}>`__", ""]
    return "\n".join(lines)
