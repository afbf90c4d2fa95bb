//! The small CSV files `famous` and `resign` read: a header line, comma-separated values, no
//! quoting (names with commas are not supported), blank lines ignored. Every bad line or value
//! is reported with the file and its line or row.

use std::path::{Path, PathBuf};

use thiserror::Error;

/// What is wrong with a CSV file.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CsvError {
    #[error("{}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: empty", .path.display())]
    Empty { path: PathBuf },
    #[error("{}: no column `{column}` (the header is `{header}`; need {need})", .path.display())]
    NoColumn {
        path: PathBuf,
        column: String,
        header: String,
        need: String,
    },
    /// A line (counted from 1 in the file) with too many fields, or too few for the columns read.
    #[error("{}:{line}: {fields} fields, the header has {columns}", .path.display())]
    Fields {
        path: PathBuf,
        line: usize,
        fields: usize,
        columns: usize,
    },
    /// A value that should be a finite number (`row` counts data rows from 1).
    #[error("{}: row {row}: {column} `{text}` is not a number", .path.display())]
    NotNumber {
        path: PathBuf,
        row: usize,
        column: &'static str,
        text: String,
    },
    #[error("{}: row {row}: {column} `{text}` is not 0 or 1", .path.display())]
    NotFlag {
        path: PathBuf,
        row: usize,
        column: &'static str,
        text: String,
    },
}

/// A CSV file's rows, each holding the required columns in the order asked for, then the
/// optional ones (empty where a row or the header lacks them).
#[derive(Debug)]
pub struct Rows {
    pub path: PathBuf,
    pub rows: Vec<Vec<String>>,
}

impl Rows {
    /// Read `path`; `need` are the required columns, `optional` the others wanted.
    pub fn read(path: &Path, need: &[&str], optional: &[&str]) -> Result<Rows, CsvError> {
        let text = std::fs::read_to_string(path).map_err(|source| CsvError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let (_, header) = lines.next().ok_or_else(|| CsvError::Empty {
            path: path.to_path_buf(),
        })?;
        let names: Vec<String> = header.split(',').map(|s| s.trim().to_string()).collect();
        let mut index = Vec::new();
        for n in need {
            index.push(
                names
                    .iter()
                    .position(|h| h == n)
                    .ok_or_else(|| CsvError::NoColumn {
                        path: path.to_path_buf(),
                        column: (*n).to_string(),
                        header: header.to_string(),
                        need: need.join(","),
                    })?,
            );
        }
        let extra: Vec<Option<usize>> = optional
            .iter()
            .map(|n| names.iter().position(|h| h == n))
            .collect();
        let mut rows = Vec::new();
        for (i, line) in lines {
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            if fields.len() > names.len() || fields.len() < index.iter().max().map_or(0, |m| m + 1)
            {
                return Err(CsvError::Fields {
                    path: path.to_path_buf(),
                    line: i + 1,
                    fields: fields.len(),
                    columns: names.len(),
                });
            }
            let mut row: Vec<String> = index.iter().map(|&j| fields[j].to_string()).collect();
            for e in &extra {
                row.push(e.and_then(|j| fields.get(j)).unwrap_or(&"").to_string());
            }
            rows.push(row);
        }
        Ok(Rows {
            path: path.to_path_buf(),
            rows,
        })
    }

    /// Row `row`'s value at `index` (of the columns asked for) as a finite number.
    pub fn number(&self, row: usize, index: usize, column: &'static str) -> Result<f64, CsvError> {
        let text = &self.rows[row][index];
        text.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| CsvError::NotNumber {
                path: self.path.clone(),
                row: row + 1,
                column,
                text: text.clone(),
            })
    }

    /// Row `row`'s value at `index` as a flag: `1`, `true`, `yes`; `0`, `false`, `no` or empty.
    pub fn flag(&self, row: usize, index: usize, column: &'static str) -> Result<bool, CsvError> {
        match self.rows[row][index].as_str() {
            "1" | "true" | "yes" => Ok(true),
            "0" | "false" | "no" | "" => Ok(false),
            text => Err(CsvError::NotFlag {
                path: self.path.clone(),
                row: row + 1,
                column,
                text: text.to_string(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, text: &str) -> PathBuf {
        let path = std::env::temp_dir().join(format!("council-csv-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn columns_by_name_with_the_optional_ones_last() {
        let path = file("ok.csv", "b,a,c\n\n2,1,x\n4,3\n");
        let r = Rows::read(&path, &["a", "b"], &["c", "d"]).unwrap();
        assert_eq!(
            r.rows,
            vec![vec!["1", "2", "x", ""], vec!["3", "4", "", ""]]
        );
        assert_eq!(r.number(1, 0, "a").unwrap(), 3.0);
        assert!(!r.flag(1, 2, "c").unwrap());
        let e = r.flag(0, 2, "c").unwrap_err().to_string();
        assert!(e.ends_with("row 1: c `x` is not 0 or 1"), "{e}");
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn bad_files_name_the_file_and_the_line() {
        let path = file("bad.csv", "a,b\n1,2,3\n");
        let e = Rows::read(&path, &["a"], &[]).unwrap_err().to_string();
        assert!(e.ends_with("bad.csv:2: 3 fields, the header has 2"), "{e}");
        let e = Rows::read(&path, &["z"], &[]).unwrap_err().to_string();
        assert!(
            e.contains("no column `z` (the header is `a,b`; need z)"),
            "{e}"
        );
        let _ = std::fs::remove_file(path);
    }
}
