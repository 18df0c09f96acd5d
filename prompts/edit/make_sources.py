"""Write the edit workload's source files: plausible Python modules of ~2,000 tokens each.

    python prompts/edit/make_sources.py          # rewrites prompts/edit/NN_<domain>.py

Deterministic (no randomness): each domain below becomes one module with three record classes
(validation, repr, dict round trip, one domain rule) and a registry class for the first of them
(add, remove, find, filter, totals, a text summary). Every file is distinct code, which is what
the edit workload's "distinct prompts" mode needs: streams edit different files.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent

# domain: (module docstring, [(class, docstring, [(field, type, default or None)], rule), ...])
# rule: (method name, return type, docstring, expression over self)
DOMAINS: dict[str, tuple[str, list]] = {
    "warehouse": ("Stock keeping for a small warehouse: items, shelves and outgoing shipments.", [
        ("Item", "A stocked article.", [("sku", "str", None), ("name", "str", None), ("quantity", "int", "0"),
                                        ("unit_price", "float", "0.0"), ("reorder_level", "int", "5")],
         ("needs_reorder", "bool", "True when stock is at or below the reorder level.",
          "self.quantity <= self.reorder_level")),
        ("Shelf", "A storage shelf with a weight limit.", [("code", "str", None), ("aisle", "int", None),
                                                          ("max_load_kg", "float", "250.0"), ("load_kg", "float", "0.0")],
         ("free_capacity", "float", "Kilograms that can still be placed on the shelf.",
          "max(self.max_load_kg - self.load_kg, 0.0)")),
        ("Shipment", "An outgoing shipment.", [("shipment_id", "str", None), ("destination", "str", None),
                                              ("weight_kg", "float", "0.0"), ("priority", "int", "1")],
         ("is_express", "bool", "Priority 3 and above ships express.", "self.priority >= 3")),
    ]),
    "library": ("Lending records of a community library.", [
        ("Book", "A book in the catalogue.", [("isbn", "str", None), ("title", "str", None), ("author", "str", None),
                                             ("copies", "int", "1"), ("on_loan", "int", "0")],
         ("available", "int", "Copies that can be lent right now.", "max(self.copies - self.on_loan, 0)")),
        ("Member", "A registered member.", [("member_id", "str", None), ("name", "str", None),
                                           ("books_out", "int", "0"), ("fines_due", "float", "0.0")],
         ("may_borrow", "bool", "Members with fines over 5.00 or five books out may not borrow.",
          "self.fines_due <= 5.0 and self.books_out < 5")),
        ("Loan", "One book lent to one member.", [("loan_id", "str", None), ("isbn", "str", None),
                                                 ("member_id", "str", None), ("days_out", "int", "0")],
         ("late_fee", "float", "0.25 per day beyond the 21-day loan period.", "max(self.days_out - 21, 0) * 0.25")),
    ]),
    "weather": ("Readings from a network of weather stations.", [
        ("Station", "A weather station.", [("station_id", "str", None), ("name", "str", None),
                                          ("altitude_m", "float", "0.0"), ("active", "bool", "True")],
         ("is_mountain", "bool", "Stations above 1,500 m count as mountain stations.", "self.altitude_m > 1500.0")),
        ("Reading", "One hourly observation.", [("station_id", "str", None), ("hour", "int", None),
                                               ("temperature_c", "float", "0.0"), ("humidity_pct", "float", "50.0"),
                                               ("wind_ms", "float", "0.0")],
         ("feels_like", "float", "A simple wind-chill estimate in degrees Celsius.",
          "self.temperature_c - 0.7 * self.wind_ms")),
        ("Alert", "A weather warning.", [("alert_id", "str", None), ("kind", "str", None),
                                        ("level", "int", "1"), ("hours", "int", "6")],
         ("is_severe", "bool", "Level 3 and above is severe.", "self.level >= 3")),
    ]),
    "clinic": ("Appointments and patients of a small veterinary clinic.", [
        ("Patient", "An animal registered at the clinic.", [("patient_id", "str", None), ("name", "str", None),
                                                           ("species", "str", None), ("weight_kg", "float", "0.0"),
                                                           ("age_years", "int", "0")],
         ("is_senior", "bool", "Animals of ten years or more are seniors.", "self.age_years >= 10")),
        ("Appointment", "A booked visit.", [("appointment_id", "str", None), ("patient_id", "str", None),
                                           ("minutes", "int", "15"), ("fee", "float", "40.0")],
         ("fee_per_minute", "float", "Fee divided by the appointment length.", "self.fee / max(self.minutes, 1)")),
        ("Vaccine", "A vaccine on the shelf.", [("code", "str", None), ("name", "str", None),
                                               ("doses", "int", "0"), ("days_to_expiry", "int", "365")],
         ("expiring_soon", "bool", "Expiring within thirty days.", "self.days_to_expiry <= 30")),
    ]),
    "fleet": ("Vehicles, drivers and trips of a delivery fleet.", [
        ("Vehicle", "A delivery van.", [("plate", "str", None), ("model", "str", None), ("odometer_km", "float", "0.0"),
                                       ("service_interval_km", "float", "15000.0"), ("last_service_km", "float", "0.0")],
         ("service_due", "bool", "True once the service interval has been driven.",
          "self.odometer_km - self.last_service_km >= self.service_interval_km")),
        ("Driver", "A licensed driver.", [("driver_id", "str", None), ("name", "str", None),
                                         ("hours_this_week", "float", "0.0"), ("points", "int", "0")],
         ("may_drive", "bool", "At most 48 hours a week and fewer than 9 licence points.",
          "self.hours_this_week < 48.0 and self.points < 9")),
        ("Trip", "One delivery round.", [("trip_id", "str", None), ("plate", "str", None),
                                        ("distance_km", "float", "0.0"), ("stops", "int", "1"), ("fuel_l", "float", "0.0")],
         ("consumption", "float", "Litres per 100 km.", "100.0 * self.fuel_l / self.distance_km if self.distance_km else 0.0")),
    ]),
    "bakery": ("Recipes, batches and orders of a neighbourhood bakery.", [
        ("Recipe", "A recipe and its yield.", [("recipe_id", "str", None), ("name", "str", None),
                                              ("flour_g", "float", "500.0"), ("water_g", "float", "350.0"),
                                              ("yield_units", "int", "1")],
         ("hydration", "float", "Water as a fraction of flour, the baker's percentage.",
          "self.water_g / self.flour_g if self.flour_g else 0.0")),
        ("Batch", "A batch in the oven.", [("batch_id", "str", None), ("recipe_id", "str", None),
                                          ("units", "int", "0"), ("minutes_left", "int", "0")],
         ("is_ready", "bool", "Ready when no baking time is left.", "self.minutes_left <= 0")),
        ("Order", "A customer order.", [("order_id", "str", None), ("customer", "str", None),
                                       ("units", "int", "1"), ("unit_price", "float", "2.5"), ("paid", "bool", "False")],
         ("amount_due", "float", "What the customer still owes.", "0.0 if self.paid else self.units * self.unit_price")),
    ]),
    "garden": ("Plots, plants and watering of an allotment garden.", [
        ("Plot", "A rented plot.", [("plot_id", "str", None), ("tenant", "str", None), ("area_m2", "float", "50.0"),
                                   ("rent_per_m2", "float", "1.2")],
         ("yearly_rent", "float", "Rent for one year.", "self.area_m2 * self.rent_per_m2")),
        ("Plant", "A crop growing on a plot.", [("plant_id", "str", None), ("variety", "str", None),
                                               ("days_planted", "int", "0"), ("days_to_harvest", "int", "90")],
         ("progress", "float", "Fraction of the growing season done, at most 1.",
          "min(self.days_planted / self.days_to_harvest, 1.0) if self.days_to_harvest else 1.0")),
        ("WateringLog", "Water given on one day.", [("plot_id", "str", None), ("day", "int", None),
                                                   ("litres", "float", "0.0"), ("rain_mm", "float", "0.0")],
         ("was_needed", "bool", "Watering counts as needed when less than 5 mm of rain fell.", "self.rain_mm < 5.0")),
    ]),
    "cinema": ("Screens, films and ticket sales of a two-screen cinema.", [
        ("Film", "A film in the programme.", [("film_id", "str", None), ("title", "str", None),
                                             ("minutes", "int", "100"), ("rating", "str", "'PG'")],
         ("is_long", "bool", "Films over two and a half hours get an interval.", "self.minutes > 150")),
        ("Screening", "One showing of a film.", [("screening_id", "str", None), ("film_id", "str", None),
                                                ("seats", "int", "120"), ("sold", "int", "0")],
         ("occupancy", "float", "Share of seats sold.", "self.sold / self.seats if self.seats else 0.0")),
        ("Ticket", "A sold ticket.", [("ticket_id", "str", None), ("screening_id", "str", None),
                                     ("price", "float", "9.0"), ("concession", "bool", "False")],
         ("net_price", "float", "Concessions pay 70 percent.", "self.price * (0.7 if self.concession else 1.0)")),
    ]),
    "energy": ("Meters, tariffs and bills of a small energy cooperative.", [
        ("Meter", "An electricity meter.", [("meter_id", "str", None), ("address", "str", None),
                                           ("reading_kwh", "float", "0.0"), ("previous_kwh", "float", "0.0")],
         ("usage", "float", "Energy used since the previous reading.", "max(self.reading_kwh - self.previous_kwh, 0.0)")),
        ("Tariff", "A price plan.", [("tariff_id", "str", None), ("name", "str", None),
                                    ("price_kwh", "float", "0.3"), ("standing_daily", "float", "0.5")],
         ("monthly_fixed", "float", "The standing charge over thirty days.", "30 * self.standing_daily")),
        ("Panel", "A solar panel on a member's roof.", [("panel_id", "str", None), ("meter_id", "str", None),
                                                       ("peak_kw", "float", "0.4"), ("efficiency", "float", "0.2")],
         ("daily_estimate", "float", "Rough daily yield in kWh with four peak-sun hours.",
          "self.peak_kw * 4.0 * (0.5 + self.efficiency)")),
    ]),
    "school": ("Pupils, courses and marks of a secondary school.", [
        ("Pupil", "An enrolled pupil.", [("pupil_id", "str", None), ("name", "str", None), ("year", "int", "7"),
                                        ("absences", "int", "0")],
         ("attendance_concern", "bool", "More than ten absences in a term is a concern.", "self.absences > 10")),
        ("Course", "A taught course.", [("course_id", "str", None), ("title", "str", None),
                                       ("capacity", "int", "30"), ("enrolled", "int", "0")],
         ("places_left", "int", "Places still open.", "max(self.capacity - self.enrolled, 0)")),
        ("Mark", "One assessed piece of work.", [("pupil_id", "str", None), ("course_id", "str", None),
                                                ("score", "float", "0.0"), ("out_of", "float", "100.0")],
         ("percentage", "float", "The score as a percentage.", "100.0 * self.score / self.out_of if self.out_of else 0.0")),
    ]),
    "aquarium": ("Tanks, fish and feeding at a public aquarium.", [
        ("Tank", "A display tank.", [("tank_id", "str", None), ("litres", "float", "500.0"),
                                    ("temperature_c", "float", "24.0"), ("salt_water", "bool", "False")],
         ("in_range", "bool", "Tropical tanks should stay between 22 and 28 degrees.",
          "22.0 <= self.temperature_c <= 28.0")),
        ("Fish", "A group of one species in a tank.", [("species", "str", None), ("tank_id", "str", None),
                                                      ("count", "int", "1"), ("adult_cm", "float", "5.0")],
         ("stocking_cm", "float", "Total adult length, for the stocking rule of thumb.", "self.count * self.adult_cm")),
        ("Feeding", "One scheduled feeding.", [("tank_id", "str", None), ("hour", "int", "9"),
                                              ("food", "str", "'flakes'"), ("grams", "float", "2.0")],
         ("is_morning", "bool", "Feedings before noon.", "self.hour < 12")),
    ]),
    "hotel": ("Rooms, guests and bookings of a small hotel.", [
        ("Room", "A guest room.", [("number", "str", None), ("beds", "int", "2"), ("rate", "float", "90.0"),
                                  ("sea_view", "bool", "False")],
         ("nightly_rate", "float", "Sea-view rooms cost 20 percent more.", "self.rate * (1.2 if self.sea_view else 1.0)")),
        ("Guest", "A guest record.", [("guest_id", "str", None), ("name", "str", None), ("stays", "int", "0"),
                                     ("country", "str", "'GB'")],
         ("is_regular", "bool", "Guests with five stays or more are regulars.", "self.stays >= 5")),
        ("Booking", "A reservation.", [("booking_id", "str", None), ("guest_id", "str", None),
                                      ("room", "str", None), ("nights", "int", "1"), ("deposit", "float", "0.0")],
         ("deposit_ok", "bool", "A deposit of at least 20 per night is required.", "self.deposit >= 20.0 * self.nights")),
    ]),
    "brewery": ("Tanks, batches and kegs of a craft brewery.", [
        ("Fermenter", "A fermentation tank.", [("tank_id", "str", None), ("capacity_l", "float", "1000.0"),
                                              ("volume_l", "float", "0.0"), ("temperature_c", "float", "18.0")],
         ("fill_level", "float", "Share of the tank in use.", "self.volume_l / self.capacity_l if self.capacity_l else 0.0")),
        ("Brew", "A batch of beer.", [("brew_id", "str", None), ("style", "str", None),
                                     ("original_gravity", "float", "1.050"), ("final_gravity", "float", "1.010")],
         ("abv", "float", "Alcohol by volume from the two gravity readings.",
          "(self.original_gravity - self.final_gravity) * 131.25")),
        ("Keg", "A filled keg.", [("keg_id", "str", None), ("brew_id", "str", None), ("litres", "float", "30.0"),
                                 ("days_filled", "int", "0")],
         ("is_fresh", "bool", "Kegs are best within sixty days.", "self.days_filled <= 60")),
    ]),
    "gym": ("Members, classes and equipment of a fitness club.", [
        ("Athlete", "A club member.", [("member_id", "str", None), ("name", "str", None), ("visits", "int", "0"),
                                      ("monthly_fee", "float", "35.0")],
         ("cost_per_visit", "float", "The monthly fee spread over this month's visits.",
          "self.monthly_fee / self.visits if self.visits else self.monthly_fee")),
        ("Session", "A group class.", [("session_id", "str", None), ("kind", "str", None), ("spaces", "int", "20"),
                                      ("booked", "int", "0")],
         ("is_full", "bool", "No spaces left.", "self.booked >= self.spaces")),
        ("Machine", "A piece of equipment.", [("machine_id", "str", None), ("kind", "str", None),
                                             ("hours_used", "float", "0.0"), ("service_hours", "float", "500.0")],
         ("needs_service", "bool", "Serviced every few hundred hours of use.", "self.hours_used >= self.service_hours")),
    ]),
    "museum": ("Objects, loans and visitors of a local museum.", [
        ("Artefact", "An object in the collection.", [("accession", "str", None), ("title", "str", None),
                                                      ("year", "int", "1900"), ("insured_value", "float", "0.0")],
         ("is_antique", "bool", "Objects over a hundred years old (reference year 2025).", "2025 - self.year >= 100")),
        ("Exhibit", "A display case or room.", [("exhibit_id", "str", None), ("theme", "str", None),
                                               ("objects", "int", "0"), ("lux", "float", "150.0")],
         ("light_safe", "bool", "Sensitive displays stay at or below 200 lux.", "self.lux <= 200.0")),
        ("Visit", "A day's visitor count.", [("day", "int", None), ("adults", "int", "0"), ("children", "int", "0"),
                                            ("donations", "float", "0.0")],
         ("donation_per_head", "float", "Donations per visitor.",
          "self.donations / (self.adults + self.children) if self.adults + self.children else 0.0")),
    ]),
    "marina": ("Berths, boats and fees of a small marina.", [
        ("Berth", "A mooring berth.", [("berth_id", "str", None), ("length_m", "float", "10.0"),
                                      ("occupied", "bool", "False"), ("power", "bool", "True")],
         ("fits", "bool", "Berths fit boats up to their length (checked against 10 m here).", "self.length_m >= 10.0")),
        ("Boat", "A moored boat.", [("registration", "str", None), ("name", "str", None),
                                   ("length_m", "float", "8.0"), ("owner", "str", "''")],
         ("size_class", "str", "Small, medium or large by length.",
          "'small' if self.length_m < 8 else 'medium' if self.length_m < 14 else 'large'")),
        ("Fee", "A mooring fee.", [("registration", "str", None), ("nights", "int", "1"),
                                  ("rate_per_m", "float", "2.8"), ("length_m", "float", "8.0")],
         ("total", "float", "Nights times length times the rate per metre.", "self.nights * self.length_m * self.rate_per_m")),
    ]),
}


def _signature(fields: list) -> str:
    required = [f"{name}: {kind}" for name, kind, default in fields if default is None]
    optional = [f"{name}: {kind} = {default}" for name, kind, default in fields if default is not None]
    return ", ".join(["self", *required, *optional])


def _record_class(name: str, doc: str, fields: list, rule: tuple) -> str:
    lines = [f"class {name}:", f'    """{doc}"""', "", f"    def __init__({_signature(fields)}) -> None:"]
    for fname, kind, _ in fields:
        if kind in ("int", "float"):
            lines += [f"        if {fname} < 0:", f'            raise ValueError("{fname} must not be negative")']
    for fname, kind, _ in fields:
        if kind == "str":
            lines.append(f"        {fname} = {fname}.strip()")
    lines += [f"        self.{fname} = {fname}" for fname, _, _ in fields]
    key = fields[0][0]
    shown = ", ".join(f"{f}={{self.{f}!r}}" for f, _, _ in fields[:3])
    lines += ["", "    def __repr__(self) -> str:", f'        return f"{name}({shown})"', "",
              "    def __eq__(self, other: object) -> bool:",
              f"        if not isinstance(other, {name}):", "            return NotImplemented",
              f"        return self.{key} == other.{key}", "",
              "    def to_dict(self) -> dict[str, object]:",
              '        """The fields as a plain dictionary (for JSON)."""',
              "        return {" + ", ".join(f'"{f}": self.{f}' for f, _, _ in fields) + "}", "",
              "    @classmethod", f'    def from_dict(cls, data: dict[str, object]) -> "{name}":',
              '        """The inverse of ``to_dict``; missing optional fields take their defaults."""',
              "        kwargs = {}"]
    for fname, kind, default in fields:
        if default is None:
            lines.append(f'        kwargs["{fname}"] = {kind}(data["{fname}"])')
        else:
            lines += [f'        if "{fname}" in data:', f'            kwargs["{fname}"] = {kind}(data["{fname}"])']
    lines.append("        return cls(**kwargs)")
    method, returns, rule_doc, expression = rule
    lines += ["", f"    def {method}(self) -> {returns}:", f'        """{rule_doc}"""', f"        return {expression}"]
    return "\n".join(lines)


def _registry_class(name: str, fields: list, rule: tuple) -> str:
    key = fields[0][0]
    numeric = [f for f, kind, _ in fields if kind in ("int", "float")]
    method = rule[0]
    lines = [f"class {name}Registry:", f'    """All {name} records, kept by {key}."""', "",
             "    def __init__(self) -> None:", f"        self._items: dict[str, {name}] = {{}}", "",
             "    def __len__(self) -> int:", "        return len(self._items)", "",
             f"    def __iter__(self) -> Iterator[{name}]:", "        return iter(self._items.values())", "",
             f"    def add(self, item: {name}) -> None:",
             f'        """Add a record; a duplicate {key} is an error."""',
             f"        if item.{key} in self._items:",
             f'            raise KeyError(f"duplicate {key}: {{item.{key}}}")',
             f"        self._items[item.{key}] = item", "",
             f"    def remove(self, {key}: str) -> {name}:",
             f"        return self._items.pop({key})", "",
             f"    def find(self, {key}: str) -> {name} | None:",
             f"        return self._items.get({key})", "",
             f"    def filter(self, predicate: Callable[[{name}], bool]) -> list[{name}]:",
             '        """Records for which ``predicate`` is true, in insertion order."""',
             "        return [item for item in self._items.values() if predicate(item)]", ""]
    if numeric:
        lines += [f"    def total(self, field: str = {numeric[0]!r}) -> float:",
                  '        """Sum of one numeric field over every record."""',
                  "        return float(sum(getattr(item, field) for item in self._items.values()))", ""]
    lines += ["    def save(self, path: Path) -> None:",
              '        """Write every record as JSON, atomically (write, then rename)."""',
              '        tmp = path.with_suffix(path.suffix + ".tmp")',
              "        tmp.write_text(json.dumps([item.to_dict() for item in self], indent=2))",
              "        tmp.replace(path)", "",
              "    @classmethod", f'    def load(cls, path: Path) -> "{name}Registry":',
              "        registry = cls()",
              "        for data in json.loads(path.read_text()):",
              f"            registry.add({name}.from_dict(data))",
              "        return registry", "",
              "    def summary(self) -> str:",
              '        """A short human-readable report."""',
              f"        flagged = sum(1 for item in self._items.values() if item.{method}())",
              f'        return f"{{len(self)}} {name.lower()} record(s), {{flagged}} with {method.replace("_", " ")}"']
    return "\n".join(lines)


def module_text(domain: str) -> str:
    doc, classes = DOMAINS[domain]
    parts = [f'"""{doc}"""', "", "from __future__ import annotations", "", "import json",
             "from pathlib import Path", "from typing import Callable, Iterator", ""]
    for name, class_doc, fields, rule in classes:
        parts += ["", _record_class(name, class_doc, fields, rule), ""]
    first = classes[0]
    parts += ["", _registry_class(first[0], first[2], first[3]), ""]
    return "\n".join(parts)


def main() -> None:
    for number, domain in enumerate(DOMAINS, start=1):
        (HERE / f"{number:02d}_{domain}.py").write_text(module_text(domain), encoding="utf-8")


if __name__ == "__main__":
    main()
