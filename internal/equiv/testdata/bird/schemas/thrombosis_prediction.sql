CREATE TABLE Examination
(
    ID INTEGER,
    `Examination Date` DATE,
    `aCL IgG` REAL,
    `aCL IgM` REAL,
    ANA INTEGER,
    `ANA Pattern` TEXT,
    `aCL IgA` INTEGER,
    Diagnosis TEXT,
    KCT TEXT,
    RVVT TEXT,
    LAC TEXT,
    Symptoms TEXT,
    Thrombosis INTEGER,
    foreign key (ID) references Patient (ID)
);

CREATE TABLE Patient
(
    ID INTEGER
        primary key,
    SEX TEXT,
    Birthday DATE,
    Description DATE,
    `First Date` DATE,
    Admission TEXT,
    Diagnosis TEXT
);

CREATE TABLE Laboratory
(
    ID INTEGER,
    Date DATE,
    GOT INTEGER,
    GPT INTEGER,
    LDH INTEGER,
    ALP INTEGER,
    TP REAL,
    ALB REAL,
    UA REAL,
    UN INTEGER,
    CRE REAL,
    `T-BIL` REAL,
    `T-CHO` INTEGER,
    TG INTEGER,
    CPK INTEGER,
    GLU INTEGER,
    WBC REAL,
    RBC REAL,
    HGB REAL,
    HCT REAL,
    PLT INTEGER,
    PT REAL,
    APTT INTEGER,
    FG REAL,
    PIC INTEGER,
    TAT INTEGER,
    TAT2 INTEGER,
    `U-PRO` TEXT,
    IGG INTEGER,
    IGA INTEGER,
    IGM INTEGER,
    CRP TEXT,
    RA TEXT,
    RF TEXT,
    C3 INTEGER,
    C4 INTEGER,
    RNP TEXT,
    SM TEXT,
    SC170 TEXT,
    SSA TEXT,
    SSB TEXT,
    CENTROMEA TEXT,
    DNA TEXT,
    `DNA-II` INTEGER,
    primary key (ID, Date)
    foreign key (ID) references Patient (ID)
);
