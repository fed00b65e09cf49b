//! What a column is, read from its name and the shape of its values: what an
//! adversary may know of a person (age, birth date, sex, zip code and other
//! geography, race, marital status, education, occupation, nationality,
//! language, religion, dates of events), what names a person outright
//! (names, e-mail addresses, phone numbers, national and record ids), and
//! what is measured of them (lab values, amounts, weights). `init` proposes
//! quasi-identifiers by this meaning first, never by file order.

use crate::hierarchy::builder::parse_date;

/// Something an adversary may know of a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Meaning {
    /// An age (or age group).
    Age,
    /// A date, year or month of birth.
    BirthDate,
    /// Sex or gender.
    Sex,
    /// A zip or postal code.
    ZipCode,
    /// City, county, coordinates: a small area.
    Place,
    /// State, region, country: a large area.
    Region,
    /// Race, ethnicity, Hispanic origin.
    Race,
    /// Marital status.
    MaritalStatus,
    /// Education (level, years, degree).
    Education,
    /// Occupation, job, work class.
    Occupation,
    /// Nationality, native country, foreign birth.
    Nationality,
    /// Language spoken.
    Language,
    /// Religion.
    Religion,
    /// Relationship in the household.
    Relationship,
    /// The date of an admission, visit, discharge or death.
    EventDate,
    /// Dates, zip-like codes, sex-like sets, years, ages: told by the values
    /// alone, with no name to confirm them.
    Shape,
}

impl Meaning {
    /// Tier 1 pins a person down (with age, sex and zip code most people are
    /// unique), tier 2 narrows them, tier 3 is a guess from the values.
    pub fn tier(self) -> u8 {
        use Meaning::*;
        match self {
            Age | BirthDate | Sex | ZipCode | Place => 1,
            Shape => 3,
            _ => 2,
        }
    }

    /// As a comment says it.
    pub fn text(self) -> &'static str {
        use Meaning::*;
        match self {
            Age => "an age",
            BirthDate => "a date (or year, month) of birth",
            Sex => "sex or gender",
            ZipCode => "a zip code",
            Place => "a place (city, county, coordinates)",
            Region => "a region (state, country)",
            Race => "race or ethnicity",
            MaritalStatus => "marital status",
            Education => "education",
            Occupation => "occupation",
            Nationality => "nationality or origin",
            Language => "language",
            Religion => "religion",
            Relationship => "family relationship",
            EventDate => "the date of an event (admission, visit, death)",
            Shape => "what its values look like",
        }
    }
}

/// What a column's name says it is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NameSays {
    /// Names a person outright, whatever its values (what is named).
    Identifier(&'static str),
    /// A record id: names a row when its values are (nearly) unique.
    RecordId,
    Quasi(Meaning),
    /// The target of an attack (disease, income): released as it is.
    Sensitive(&'static str),
    /// Measured of a person (weights, lab values, amounts).
    Measurement(&'static str),
    Nothing,
}

/// Words that name a person or their contacts.
const IDENTIFIER_WORDS: &[(&str, &str)] = &[
    ("email", "an e-mail address"),
    ("mail", "an e-mail address"),
    ("emailaddress", "an e-mail address"),
    ("phone", "a phone number"),
    ("telephone", "a phone number"),
    ("tel", "a phone number"),
    ("mobile", "a phone number"),
    ("cellphone", "a phone number"),
    ("fax", "a phone number"),
    ("phonenumber", "a phone number"),
    ("ssn", "a national id"),
    ("socialsecurity", "a national id"),
    ("nino", "a national id"),
    ("nhs", "a national id"),
    ("passport", "a national id"),
    ("licence", "a licence number"),
    ("license", "a licence number"),
    ("iban", "an account number"),
    ("account", "an account number"),
    ("creditcard", "a card number"),
    ("ip", "an IP address"),
    ("ipaddress", "an IP address"),
    ("url", "a web address"),
    ("username", "a user name"),
    ("login", "a user name"),
    ("address", "a street address"),
    ("street", "a street address"),
    ("streetaddress", "a street address"),
    ("mrn", "a medical record number"),
    ("uuid", "a record id"),
    ("guid", "a record id"),
];

/// Words of a person's name (`name` itself only beside words of a person).
const NAME_WORDS: &[&str] = &[
    "firstname",
    "lastname",
    "surname",
    "forename",
    "fullname",
    "givenname",
    "familyname",
    "maidenname",
    "nickname",
    "fname",
    "lname",
];

/// Words that may stand beside `name` in a person's name column.
const PERSON_WORDS: &[&str] = &[
    "first", "last", "full", "given", "family", "middle", "maiden", "patient", "person",
    "customer", "client", "user", "employee", "member", "mother", "father", "contact", "owner",
    "nick", "sur", "display", "student", "name",
];

const QUASI_WORDS: &[(&str, Meaning)] = {
    use Meaning::*;
    &[
        ("age", Age),
        ("ages", Age),
        ("agegroup", Age),
        ("dob", BirthDate),
        ("yob", BirthDate),
        ("birth", BirthDate),
        ("born", BirthDate),
        ("birthday", BirthDate),
        ("birthdate", BirthDate),
        ("birthyear", BirthDate),
        ("birthmonth", BirthDate),
        ("dateofbirth", BirthDate),
        ("yearofbirth", BirthDate),
        ("sex", Sex),
        ("gender", Sex),
        ("male", Sex),
        ("female", Sex),
        ("zip", ZipCode),
        ("zipcode", ZipCode),
        ("postcode", ZipCode),
        ("postal", ZipCode),
        ("postalcode", ZipCode),
        ("plz", ZipCode),
        ("city", Place),
        ("town", Place),
        ("village", Place),
        ("county", Place),
        ("municipality", Place),
        ("commune", Place),
        ("district", Place),
        ("neighborhood", Place),
        ("neighbourhood", Place),
        ("tract", Place),
        ("lat", Place),
        ("latitude", Place),
        ("lon", Place),
        ("lng", Place),
        ("longitude", Place),
        ("birthplace", Place),
        ("residence", Place),
        ("state", Region),
        ("province", Region),
        ("region", Region),
        ("country", Region),
        ("territory", Region),
        ("race", Race),
        ("ethnicity", Race),
        ("ethnic", Race),
        ("hispanic", Race),
        ("hisp", Race),
        ("latino", Race),
        ("ancestry", Race),
        ("marital", MaritalStatus),
        ("married", MaritalStatus),
        ("maritalstatus", MaritalStatus),
        ("education", Education),
        ("educ", Education),
        ("edu", Education),
        ("school", Education),
        ("schooling", Education),
        ("degree", Education),
        ("occupation", Occupation),
        ("occup", Occupation),
        ("job", Occupation),
        ("profession", Occupation),
        ("employment", Occupation),
        ("workclass", Occupation),
        ("employer", Occupation),
        ("industry", Occupation),
        ("nationality", Nationality),
        ("citizenship", Nationality),
        ("citizen", Nationality),
        ("native", Nationality),
        ("foreign", Nationality),
        ("immigrant", Nationality),
        ("nativity", Nationality),
        ("language", Language),
        ("lang", Language),
        ("religion", Religion),
        ("religious", Religion),
        ("relationship", Relationship),
        ("admission", EventDate),
        ("admit", EventDate),
        ("admitted", EventDate),
        ("discharge", EventDate),
        ("discharged", EventDate),
        ("visit", EventDate),
        ("death", EventDate),
        ("died", EventDate),
        ("dod", EventDate),
    ]
};

/// The target of an attack: released as it is, for l-diversity and the like.
const SENSITIVE_WORDS: &[&str] = &[
    "disease",
    "diagnosis",
    "diag",
    "icd",
    "illness",
    "disorder",
    "treatment",
    "medication",
    "drug",
    "hiv",
    "cancer",
    "symptom",
    "symptoms",
    "salary",
    "income",
];

const MEASUREMENT_WORDS: &[&str] = &[
    "weight",
    "wt",
    "wgt",
    "height",
    "bmi",
    "price",
    "cost",
    "amount",
    "amt",
    "total",
    "sum",
    "balance",
    "wage",
    "wages",
    "pay",
    "payment",
    "revenue",
    "gain",
    "loss",
    "capital",
    "score",
    "value",
    "result",
    "lab",
    "glucose",
    "cholesterol",
    "ldl",
    "hdl",
    "hba1c",
    "pressure",
    "bp",
    "systolic",
    "diastolic",
    "pulse",
    "rate",
    "dose",
    "count",
    "hours",
    "minutes",
    "duration",
    "length",
    "size",
    "volume",
    "temp",
    "temperature",
    "creatinine",
    "hemoglobin",
    "mass",
    "fee",
    "charge",
    "charges",
    "bill",
    "spend",
    "spending",
    "sales",
    "tax",
    "fare",
    "distance",
    "speed",
];

/// The words of a column name, lower case: split at anything not a letter
/// or digit, at camel case (`BirthDate`, `ZIPCode`) and between letters and
/// digits.
pub fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out: Vec<String> = Vec::new();
    let mut word = String::new();
    for (i, &ch) in chars.iter().enumerate() {
        if !ch.is_alphanumeric() {
            out.extend((!word.is_empty()).then(|| std::mem::take(&mut word)));
            continue;
        }
        if let Some(&prev) = i.checked_sub(1).and_then(|p| chars.get(p)) {
            let next_lower = chars.get(i + 1).is_some_and(|c| c.is_lowercase());
            let camel = (prev.is_lowercase() && ch.is_uppercase())
                || (prev.is_uppercase() && ch.is_uppercase() && next_lower);
            let digits = prev.is_ascii_digit() != ch.is_ascii_digit() && prev.is_alphanumeric();
            if (camel || digits) && !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
        }
        word.extend(ch.to_lowercase());
    }
    out.extend((!word.is_empty()).then_some(word));
    out
}

/// `word` as a known word, or (`mage`, `fedu`, `Mjob`) a known word after
/// a mother's or father's `m` or `f`, as birth and school tables abbreviate.
fn lookup<T: Copy>(word: &str, table: &[(&'static str, T)]) -> Option<T> {
    let find = |w: &str| table.iter().find(|(k, _)| *k == w).map(|&(_, v)| v);
    find(word).or_else(|| {
        let rest = word.strip_prefix(['m', 'f'])?;
        (rest.len() >= 3).then(|| find(rest)).flatten()
    })
}

/// The entry of `list` that `word` is (as [`lookup`] reads it).
fn listed(word: &str, list: &[&'static str]) -> Option<&'static str> {
    let pairs: Vec<(&'static str, &'static str)> = list.iter().map(|&w| (w, w)).collect();
    lookup(word, &pairs)
}

/// What the name says, checked in an order that settles mixed names:
/// identifying words first, then what is measured (`birth_weight` is a
/// weight), then what an adversary knows (`city_birth` is a place), then
/// names and ids.
pub fn by_name(name: &str) -> NameSays {
    let words = words(name);
    let joined: String = words.concat();
    let all = || words.iter().chain([&joined]);
    if let Some(what) = all().find_map(|w| lookup(w, IDENTIFIER_WORDS)) {
        return NameSays::Identifier(what);
    }
    if all().any(|w| listed(w, NAME_WORDS).is_some())
        || (words.iter().any(|w| w == "name")
            && words.iter().all(|w| PERSON_WORDS.contains(&w.as_str())))
    {
        return NameSays::Identifier("a person's name");
    }
    if let Some(word) = words.iter().find_map(|w| listed(w, SENSITIVE_WORDS)) {
        return NameSays::Sensitive(word);
    }
    if let Some(word) = words.iter().find_map(|w| listed(w, MEASUREMENT_WORDS)) {
        return NameSays::Measurement(word);
    }
    if joined.contains("weight") || joined.contains("wgt") {
        return NameSays::Measurement("weight");
    }
    if let Some(m) = quasi_by_name(&words, &joined) {
        return NameSays::Quasi(m);
    }
    if id_named(name, &words) {
        return NameSays::RecordId;
    }
    NameSays::Nothing
}

/// The trait the words name. A birth beside another trait is that trait's
/// (`city_birth` is a place, `birth_country` a region), and a native
/// country a nationality; otherwise the first word that names one.
fn quasi_by_name(words: &[String], joined: &str) -> Option<Meaning> {
    if words == ["long"] {
        return Some(Meaning::Place);
    }
    let mut meanings: Vec<Meaning> = (words.iter().map(String::as_str))
        .chain([joined])
        .filter_map(|w| lookup(w, QUASI_WORDS))
        .collect();
    if meanings.iter().any(|&m| m != Meaning::BirthDate) {
        meanings.retain(|&m| m != Meaning::BirthDate);
    }
    if meanings.contains(&Meaning::Nationality) {
        return Some(Meaning::Nationality);
    }
    if let Some(&m) = meanings.first() {
        return Some(m);
    }
    if joined.contains("birth") {
        return Some(Meaning::BirthDate);
    }
    (joined.contains("zipcode") || joined.contains("postcode")).then_some(Meaning::ZipCode)
}

/// `id`, `ID`, `user_id`, `PatientId`, `record`, `mrn`: named as an id.
fn id_named(name: &str, words: &[String]) -> bool {
    words.iter().any(|w| {
        matches!(
            w.as_str(),
            "id" | "ids" | "identifier" | "record" | "recordid" | "key" | "uid" | "pid"
        )
    }) || (name.ends_with("Id") && name.len() > 2)
        || name.ends_with("ID")
}

/// Share of the values a shape must hold for: most, not all, as a column
/// of contacts may hold a stray `n/a`.
const MOST: f64 = 0.8;

/// E-mail addresses and phone numbers (whatever the column's kind).
pub fn identifier_shape(values: &[&str]) -> Option<&'static str> {
    if values.is_empty() {
        return None;
    }
    let most = |f: &dyn Fn(&str) -> bool| {
        values.iter().filter(|v| f(v.trim())).count() as f64 >= MOST * values.len() as f64
    };
    if most(&looks_like_email) {
        return Some("values look like e-mail addresses");
    }
    if most(&looks_like_phone) {
        return Some("values look like phone or national id numbers");
    }
    None
}

fn looks_like_email(v: &str) -> bool {
    let Some((local, domain)) = v.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !local.contains(char::is_whitespace)
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains(char::is_whitespace)
}

/// `+1 617 555 0101`, `(617) 555-0101`, `123-45-6789`: 7 to 15 digits with
/// phone punctuation, which a date, a decimal or a plain number has not.
fn looks_like_phone(v: &str) -> bool {
    let digits = v.bytes().filter(u8::is_ascii_digit).count();
    let punctuated = v
        .bytes()
        .any(|b| matches!(b, b'-' | b' ' | b'(' | b')' | b'+'));
    (7..=15).contains(&digits)
        && punctuated
        && v.bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b' ' | b'(' | b')' | b'+' | b'/'))
        && v.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '(')
        && parse_date(v).is_none()
}

/// Values that are one of a person's traits by their look alone: sex-like
/// sets, years of birth, ages (integers), given `min`/`max` for integers.
pub fn quasi_shape(values: &[&str], integers: Option<(f64, f64)>) -> Option<&'static str> {
    let sexes = [
        "m", "f", "male", "female", "man", "woman", "men", "women", "w", "x", "u", "d", "other",
        "unknown", "diverse",
    ];
    let lower: Vec<String> = values.iter().map(|v| v.trim().to_lowercase()).collect();
    if (2..=4).contains(&lower.len())
        && lower.iter().all(|v| sexes.contains(&v.as_str()))
        && lower.iter().any(|v| v.starts_with('m'))
        && lower.iter().any(|v| v.starts_with('f') || v == "w")
    {
        return Some("values look like sexes");
    }
    let (min, max) = integers?;
    if min >= 1900.0 && max <= 2030.0 && values.len() >= 2 {
        return Some("integers 1900..2030 look like years (of birth?)");
    }
    if min >= 0.0 && max <= 120.0 && max - min >= 10.0 && values.len() >= 10 {
        return Some("integers within 0..120 look like ages");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use Meaning::*;

    #[test]
    fn names_are_split_into_words() {
        assert_eq!(words("ZIPCode"), ["zip", "code"]);
        assert_eq!(words("native-country"), ["native", "country"]);
        assert_eq!(words("BirthDate"), ["birth", "date"]);
        assert_eq!(words("zip5"), ["zip", "5"]);
        assert_eq!(words("e-mail"), ["e", "mail"]);
        assert_eq!(words("  "), Vec::<String>::new());
    }

    #[test]
    fn names_say_what_an_adversary_knows() {
        let quasi = [
            ("age", Age),
            ("Age", Age),
            ("mage", Age),
            ("fage", Age),
            ("dob", BirthDate),
            ("birth_date", BirthDate),
            ("DateOfBirth", BirthDate),
            ("yob", BirthDate),
            ("birthmonth", BirthDate),
            ("sex", Sex),
            ("Gender", Sex),
            ("zip", ZipCode),
            ("zip_code", ZipCode),
            ("ZIPCode", ZipCode),
            ("zipcode", ZipCode),
            ("postcode", ZipCode),
            ("county", Place),
            ("city_birth", Place),
            ("lat", Place),
            ("Longitude", Place),
            ("state", Region),
            ("native-country", Nationality),
            ("race", Race),
            ("mrace", Race),
            ("mhisp", Race),
            ("ethnicity", Race),
            ("marital-status", MaritalStatus),
            ("mmarried", MaritalStatus),
            ("education", Education),
            ("medu", Education),
            ("education-num", Education),
            ("occupation", Occupation),
            ("Mjob", Occupation),
            ("nationality", Nationality),
            ("language", Language),
            ("religion", Religion),
            ("admission_date", EventDate),
            ("visit", EventDate),
            ("date_of_death", EventDate),
        ];
        for (name, meaning) in quasi {
            assert_eq!(by_name(name), NameSays::Quasi(meaning), "{name}");
        }
    }

    #[test]
    fn names_say_who_a_person_is_and_what_is_measured() {
        for name in [
            "name",
            "first_name",
            "LastName",
            "patient name",
            "email",
            "e-mail",
            "phone",
            "ssn",
            "mrn",
            "address",
        ] {
            assert!(matches!(by_name(name), NameSays::Identifier(_)), "{name}");
        }
        for name in [
            "id",
            "ID",
            "user_id",
            "PatientId",
            "record-ID",
            "record",
            "Key",
        ] {
            assert_eq!(by_name(name), NameSays::RecordId, "{name}");
        }
        for name in [
            "weight",
            "bweight",
            "fnlwgt",
            "birth_weight",
            "capital-gain",
            "hours-per-week",
            "ldl",
            "price",
        ] {
            assert!(matches!(by_name(name), NameSays::Measurement(_)), "{name}");
        }
        for name in ["disease", "Diagnosis", "salary-class", "income"] {
            assert!(matches!(by_name(name), NameSays::Sensitive(_)), "{name}");
        }
        for name in [
            "idea",
            "valid",
            "width",
            "page",
            "usage",
            "mileage",
            "ward",
            "foo",
            "city_name2",
        ] {
            assert!(
                !matches!(by_name(name), NameSays::Identifier(_) | NameSays::RecordId),
                "{name}: {:?}",
                by_name(name)
            );
        }
        for name in [
            "idea", "valid", "width", "page", "usage", "mileage", "ward", "comment",
        ] {
            assert_eq!(by_name(name), NameSays::Nothing, "{name}");
        }
        assert_eq!(by_name("city_name"), NameSays::Quasi(Place));
    }

    #[test]
    fn values_say_what_they_are() {
        let emails = ["ann@example.org", "bo.b@mail.example.com", "n/a"];
        assert!(identifier_shape(&emails[..2]).unwrap().contains("e-mail"));
        let phones = [
            "+1 617 555 0101",
            "(617) 555-0102",
            "617-555-0103",
            "123-45-6789",
        ];
        assert!(identifier_shape(&phones).unwrap().contains("phone"));
        for plain in [
            &["2023-01-02", "2024-11-30"][..],
            &["1234.5678", "-1234567"],
            &["12345678", "87654321"],
            &["-12 345 678", "a"],
            &["@", "x@y"],
        ] {
            assert_eq!(identifier_shape(plain), None, "{plain:?}");
        }
        assert!(quasi_shape(&["M", "F"], None).is_some());
        assert!(quasi_shape(&["male", "female", "unknown"], None).is_some());
        assert_eq!(quasi_shape(&["M", "L"], None), None);
        assert_eq!(quasi_shape(&["yes", "no"], None), None);
        let years = ["1950", "1960"];
        assert!(
            quasi_shape(&years, Some((1950.0, 1960.0)))
                .unwrap()
                .contains("years")
        );
        let ages: Vec<String> = (17..40).map(|a| a.to_string()).collect();
        let ages: Vec<&str> = ages.iter().map(String::as_str).collect();
        assert!(
            quasi_shape(&ages, Some((17.0, 39.0)))
                .unwrap()
                .contains("ages")
        );
        assert_eq!(quasi_shape(&ages[..5], Some((17.0, 21.0))), None);
        assert_eq!(quasi_shape(&ages, Some((17.0, 300.0))), None);
    }
}
